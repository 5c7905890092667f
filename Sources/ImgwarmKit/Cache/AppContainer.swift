/// An app's data container as `imgwarm pack` lays a cache out in it (docs/pack.md): the folders
/// an image library's files live in, relative to the container's root (iOS: the folder
/// `xcrun simctl get_app_container … data` names; Android: `/data/data/PKG`, where `run-as`
/// starts).
public enum AppContainer {
    /// The platform whose container layout an archive follows.
    public enum Platform: String, Sendable, CaseIterable {
        case ios
        case android
    }

    /// A folder of the container that libraries keep cache files in.
    public enum Folder: Sendable, Equatable {
        /// The caches root: iOS `Library/Caches`, Android `cacheDir`.
        case caches
        /// The app's support folder: iOS `Library/Application Support` (path_provider's
        /// `getApplicationSupportDirectory()`), Android `files` (docs/cache-formats-android.md).
        case support
    }

    /// A file of a cache kept outside its folder (`OutsideFilesFormat`).
    public struct OutsideFile: Sendable, Equatable {
        /// Where it is on this machine.
        public var path: String
        /// The container folder the app keeps it in.
        public var folder: Folder
        /// Its name there.
        public var name: String

        public init(path: String, folder: Folder, name: String) {
            self.path = path
            self.folder = folder
            self.name = name
        }
    }

    /// The app's preferences file on iOS (its standard user defaults), relative to the container.
    public static func preferencesPath(bundleID: String) -> String {
        "Library/Preferences/\(bundleID).plist"
    }

    /// True when `text` can be an app's bundle identifier: letters, digits, `-` and `.`, not
    /// starting with a dot (so it is one plain file name).
    public static func isBundleID(_ text: String) -> Bool {
        guard let first = text.utf8.first, first != UInt8(ascii: ".") else { return false }
        return text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
        }
    }

    /// A preferences file (an XML property list, which `NSUserDefaults` reads as it reads its
    /// binary form) holding `values` as integers.
    public static func preferencesPlist(_ values: [(key: String, value: Int)]) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>

            """
        for (key, value) in values {
            text += "\t<key>\(key)</key>\n\t<integer>\(value)</integer>\n"
        }
        text += "</dict>\n</plist>\n"
        return Array(text.utf8)
    }

    /// `folder`'s path relative to the container's root on `platform`.
    public static func path(of folder: Folder, on platform: Platform) -> String {
        switch (platform, folder) {
        case (.ios, .caches): return "Library/Caches"
        case (.ios, .support): return "Library/Application Support"
        case (.android, .caches): return "cache"
        case (.android, .support): return "files"
        }
    }
}

/// Why a cache cannot be laid out in an app's container.
public enum ContainerLayoutError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The folder's name is not one the format gives its folder, so where the app keeps it is not
    /// known: the folder, and the shape its name should have.
    case unknownFolderName(String, expected: String)

    public var description: String {
        switch self {
        case .unknownFolderName(let folder, let expected):
            return
                "\(folder) is not named as its library names its folder (\(expected)), so where the app keeps it is not known: name the caches root with \(Setting.cacheDir), or rename the folder"
        }
    }
}

extension CacheLocation {
    /// The cache folder's path relative to an app container on `platform`: the format's own
    /// folder under the platform's caches root, its namespace read back from the folder's name
    /// (`--disk-cache-path` names the folder, not the namespace).
    public func containerPath(on platform: AppContainer.Platform) throws(ContainerLayoutError) -> String {
        let marker = "\u{1}"
        let template = format.folder(cachesRoot: "/", namespace: marker).split(separator: "/").map(String.init)
        let actual = folder.split(separator: "/").map(String.init)
        let expected = template.joined(separator: "/").split(separator: "\u{1}", omittingEmptySubsequences: false)
            .joined(separator: "<namespace>")
        guard actual.count >= template.count else { throw .unknownFolderName(folder, expected: expected) }
        var namespace = CacheLocation.defaultNamespace
        for (shape, name) in zip(template, actual.suffix(template.count)) {
            guard let range = shape.firstRange(of: marker) else {
                guard shape == name else { throw .unknownFolderName(folder, expected: expected) }
                continue
            }
            let prefix = shape[..<range.lowerBound]
            let suffix = shape[range.upperBound...]
            guard name.count > prefix.count + suffix.count, name.hasPrefix(prefix), name.hasSuffix(suffix) else {
                throw .unknownFolderName(folder, expected: expected)
            }
            namespace = String(name.dropFirst(prefix.count).dropLast(suffix.count))
        }
        let root = AppContainer.path(of: .caches, on: platform)
        return format.folder(cachesRoot: root, namespace: namespace)
    }
}
