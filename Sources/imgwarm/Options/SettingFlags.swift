import ImgwarmKit

/// The one table from the engine's settings to imgwarm's flags: the engine's messages name a
/// `Setting`, and `Imgwarm.main` installs this spelling before any command runs.
enum SettingFlags {
    static func flag(for setting: Setting) -> String {
        switch setting {
        case .maxBytes: return "--max-bytes"
        case .maxTime: return "--max-time"
        case .timeout: return "--timeout"
        case .maxRedirects: return "--max-redirects"
        case .maxRetryWait: return "--max-retry-wait"
        case .maxPixels: return "--max-pixels"
        case .maxDecodeMemory: return "--max-decode-memory"
        case .lockTimeout: return "--lock-timeout"
        case .statePath: return "--state"
        case .diskCachePath: return "--disk-cache-path"
        case .cacheDir: return "--cache-dir"
        case .namespace: return "--namespace"
        case .force: return "--force"
        case .expireType: return "--expire-type"
        case .keyFilter: return "--key-filter"
        case .shard: return "--shard"
        case .listFormat: return "--format"
        case .maxSize: return "--max-size"
        case .maxAge: return "--max-age"
        case .expiresIn: return "--expires-in"
        case .freshness: return "--freshness"
        case .filesRoot: return "--files-root"
        case .offline: return "--offline"
        case .acceptSVG: return "--accept-svg"
        case .databasePath: return "--database"
        case .adbPath: return "--adb"
        case .serial: return "--serial"
        case .root: return "--root"
        case .cacheFormat: return "--cache-format"
        case .platform: return "--platform"
        case .streamLimit: return "--stream-limit"
        case .stallTimeout: return "--stall-timeout"
        case .bundleID: return "--bundle-id"
        }
    }

    /// Makes the engine's messages name imgwarm's flags, for the whole process (the binary).
    static func install() {
        Setting.useNames { flag(for: $0) }
    }

    /// The same spelling by a setting's configuration name, for a command run in-process
    /// (`ProcessContext.settingNames`), which leaves the process's spelling alone.
    static let byName: @Sendable (String) -> String = { name in
        Setting(rawValue: name).map(flag(for:)) ?? name
    }
}
