import ImgwarmSystem
import Synchronization

/// A setting of a job's configuration that a message can name: the limit a download ran into,
/// the option a usage error is about.
///
/// The engine never spells a command-line flag. Its messages interpolate a `Setting`, whose words
/// are the configuration's own name (`maxBytes`) unless the program hosting the engine installs
/// its spelling once at startup (`Setting.useNames`): the imgwarm CLI installs its flags
/// (`Sources/imgwarm/Options/SettingFlags.swift`), so its users read `--max-bytes`.
public enum Setting: String, Sendable, CaseIterable, CustomStringConvertible {
    case maxBytes
    case maxTime
    case timeout
    case maxRedirects
    case maxRetryWait
    case maxPixels
    case maxDecodeMemory
    case lockTimeout
    case statePath
    case diskCachePath
    case cacheDir
    case namespace
    case force
    case expireType
    case keyFilter
    case shard
    case listFormat
    case maxSize
    case maxAge
    case expiresIn
    case freshness
    case databasePath
    case filesRoot
    case offline
    case acceptSVG
    case adbPath
    case serial
    case root
    case cacheFormat
    case platform
    case streamLimit
    case stallTimeout
    case bundleID

    /// How messages name this setting: the spelling of the calling thread's `ProcessContext`
    /// (a command run in-process), else the installed one, else the configuration's name.
    public var description: String {
        if let names = ProcessContext.current?.settingNames { return names(rawValue) }
        return installedSettingNames.withLock { $0 }?.names(self) ?? rawValue
    }

    /// Makes every message name settings with `names` (a command-line program's flags), for
    /// the rest of the process. Call once, before any job runs; a command run in-process names
    /// them through its `ProcessContext.settingNames` instead, leaving the process's alone.
    public static func useNames(_ names: @escaping @Sendable (Setting) -> String) {
        installedSettingNames.withLock { $0 = SettingNames(names: names) }
    }
}

/// The installed names, boxed: a closure taken out of the `Mutex` as a value came back wrapped
/// in one more reabstraction thunk at each reading, so the n-th message called through n thunks
/// (quadratic, and a stack overflow past some 100,000 messages: an `--offline` list of plain
/// URL lines, each line's `no-body` message naming the setting). A class reference is read as is.
private final class SettingNames: Sendable {
    let names: @Sendable (Setting) -> String
    init(names: @escaping @Sendable (Setting) -> String) { self.names = names }
}

private let installedSettingNames = Mutex<SettingNames?>(nil)
