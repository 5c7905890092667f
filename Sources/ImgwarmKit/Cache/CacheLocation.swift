import ImgwarmSystem

/// Where a disk cache folder is, as SDWebImage lays it out (docs/cache-contract.md §1).
///
/// The caches root plays the part of the app's `Library/Caches`; the disk cache folder is
/// `<root>/com.hackemist.SDImageCache/<namespace>`, unless a folder is named directly. imgwarm's own
/// files (state database, temporary files, lock) live in the hidden sibling folder
/// `<parent>/.imgwarm/<folder name>/`, never inside the cache folder itself.
public struct CacheLocation: Sendable, Equatable {
    /// The disk cache folder: flat, one file per cache key. Always an absolute path.
    public var folder: String
    /// The library whose cache the folder is: it names the entries. SDWebImage's by default.
    public var format: any CacheFormat = CacheFormats.standard

    public static func == (a: CacheLocation, b: CacheLocation) -> Bool {
        a.folder == b.folder && a.format.name == b.format.name
    }

    /// The namespace `SDImageCache.sharedImageCache` uses. `"default"` by default.
    public static let defaultNamespace = "default"
    /// The name of the hidden folder beside a cache folder where imgwarm keeps its own files.
    public static let privateFolderName = ".imgwarm"

    public init(folder: String, format: any CacheFormat = CacheFormats.standard) {
        self.folder = CacheLocation.absolute(folder)
        self.format = format
    }

    /// The folder `format` uses for a caches root and a namespace.
    public init(
        root: String, namespace: String = CacheLocation.defaultNamespace,
        format: any CacheFormat = CacheFormats.standard
    ) throws(CacheLocationError) {
        try CacheLocation.validate(namespace: namespace)
        self.init(folder: format.folder(cachesRoot: root, namespace: namespace), format: format)
    }

    /// Resolves the location from the command-line options and the environment.
    ///
    /// `diskCachePath` wins; otherwise the caches root is `cacheDir`, else `$IMGWARM_CACHE_DIR`,
    /// else `$XDG_CACHE_HOME`, else `~/.cache`. A folder that is or lies inside a folder named
    /// `.imgwarm` is refused: it would be imgwarm's own folder for another cache.
    public static func resolve(
        cacheDir: String?, namespace: String?, diskCachePath: String?,
        environment: [String: String], format: any CacheFormat = CacheFormats.standard
    ) throws(CacheLocationError) -> CacheLocation {
        try validate(namespace: namespace, for: format)
        let location = try resolveFolder(
            cacheDir: cacheDir, namespace: namespace, diskCachePath: diskCachePath, environment: environment,
            format: format)
        if location.folder.split(separator: "/").contains(Substring(privateFolderName)) {
            throw .insidePrivateFolder(location.folder)
        }
        return location
    }

    private static func resolveFolder(
        cacheDir: String?, namespace: String?, diskCachePath: String?,
        environment: [String: String], format: any CacheFormat
    ) throws(CacheLocationError) -> CacheLocation {
        if let diskCachePath {
            guard !diskCachePath.isEmpty else { throw .emptyPath(.diskCachePath) }
            if namespace != nil || cacheDir != nil { throw .conflictingOptions }
            return CacheLocation(folder: diskCachePath, format: format)
        }
        let root: String
        if let cacheDir {
            guard !cacheDir.isEmpty else { throw .emptyPath(.cacheDir) }
            root = cacheDir
        } else if let value = environment["IMGWARM_CACHE_DIR"], !value.isEmpty {
            root = value
        } else if let value = environment["XDG_CACHE_HOME"], !value.isEmpty {
            root = value
        } else if let home = environment["HOME"], !home.isEmpty {
            root = join(home, ".cache")
        } else {
            throw .noHome
        }
        return try CacheLocation(root: root, namespace: namespace ?? defaultNamespace, format: format)
    }

    /// Folders `clean` never empties, whatever `--force` says, with what each is: `/`, the home
    /// folder, and every caches root the options and environment name (`cacheDir`,
    /// `$IMGWARM_CACHE_DIR`, `$XDG_CACHE_HOME`, `~/.cache`). Paths are absolute, not resolved.
    public static func protectedFolders(cacheDir: String?, environment: [String: String]) -> [String: String] {
        var folders = ["/": "the root folder"]
        var roots = [cacheDir, environment["IMGWARM_CACHE_DIR"], environment["XDG_CACHE_HOME"]]
        if let home = environment["HOME"], !home.isEmpty {
            roots.append(join(home, ".cache"))
        }
        for case let root? in roots where !root.isEmpty {
            folders[absolute(root)] = "a caches root (the folder that holds the libraries' cache folders)"
        }
        if let home = environment["HOME"], !home.isEmpty { folders[absolute(home)] = "the home folder" }
        return folders
    }

    /// imgwarm's private folder for this cache: `<parent>/.imgwarm/<folder name>`.
    public var privateFolder: String {
        let (parent, name) = CacheLocation.split(folder)
        return CacheLocation.join(
            CacheLocation.join(parent, CacheLocation.privateFolderName), name.isEmpty ? "root" : name)
    }

    /// `namespace` (`--namespace`, nil when left out) for `format`: a format whose folder has one
    /// fixed name takes none, and a namespace is one folder name, not imgwarm's own. The one
    /// check, for the commands that resolve a location here and for `pull`, which names the
    /// device's folder only.
    public static func validate(namespace: String?, for format: any CacheFormat) throws(CacheLocationError) {
        guard let namespace else { return }
        if !format.hasNamespace { throw .noNamespace(format.name) }
        try validate(namespace: namespace)
    }

    public static func validate(namespace: String) throws(CacheLocationError) {
        if namespace.isEmpty || namespace == "." || namespace == ".." || namespace.contains("/")
            || namespace.contains("\u{0}")
        {
            throw .invalidNamespace(namespace)
        }
        if namespace == privateFolderName { throw .reservedNamespace(namespace) }
    }

    // MARK: - Path helpers

    static func join(_ base: String, _ component: String) -> String {
        base.hasSuffix("/") ? base + component : base + "/" + component
    }

    /// Splits an absolute path into its parent and last component.
    /// Creates the folders missing above `path`, as `mkdir -p` of its parent does (each 0755
    /// less the umask); the first that cannot be made throws.
    static func makeParentFolders(of path: String) throws(SystemError) {
        var missing: [String] = []
        var current = split(absolute(path)).parent
        while !FileSystem.exists(current) && current != "/" {
            missing.append(current)
            current = split(current).parent
        }
        for folder in missing.reversed() { try FileSystem.makeFolder(folder) }
    }

    static func split(_ path: String) -> (parent: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let parent = slash == path.startIndex ? "/" : String(path[..<slash])
        return (parent, String(path[path.index(after: slash)...]))
    }

    /// `path` made absolute against the working directory, `.` and `..` components and repeated
    /// or trailing slashes removed (textually: symbolic links are not resolved).
    public static func absolute(_ path: String) -> String {
        var full = path
        if !path.hasPrefix("/") {
            let cwd = FileSystem.currentFolder ?? "/"
            full = join(cwd, path)
        }
        var components: [Substring] = []
        for component in full.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." {
                if !components.isEmpty { components.removeLast() }
                continue
            }
            components.append(component)
        }
        return "/" + components.joined(separator: "/")
    }
}

/// Why a cache location could not be resolved. Each is a usage error.
public enum CacheLocationError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidNamespace(String)
    /// The namespace is `.imgwarm`: the folder beside the namespaces where imgwarm keeps its state.
    case reservedNamespace(String)
    /// The cache folder is or lies inside a folder named `.imgwarm`.
    case insidePrivateFolder(String)
    case emptyPath(Setting)
    case conflictingOptions
    case noHome
    /// `--namespace` was given for a format whose folder has a fixed name.
    case noNamespace(String)
    /// `--namespace` was given for several formats, none of which has one.
    case noNamespaceInAny([String])
    /// A folder named directly for several formats: it is one format's folder.
    case oneFolderForSeveralFormats([String])
    /// Two formats of one run whose folders (or private folders) are one, or one inside the other.
    case sameFolder(String, String, String)

    public var description: String {
        switch self {
        case .invalidNamespace(let name):
            return "invalid namespace '\(name)': use a single folder name such as 'default' or 'avatars'"
        case .reservedNamespace(let name):
            return
                "invalid namespace '\(name)': imgwarm keeps its state for the other namespaces in the folder of that name; use another name such as 'default' or 'avatars'"
        case .insidePrivateFolder(let folder):
            return
                "the cache folder \(folder) is or lies inside a folder named \(CacheLocation.privateFolderName), where imgwarm keeps its own state beside cache folders: choose a folder outside it"
        case .emptyPath(let option):
            return "\(option) needs a folder path, e.g. \(option) /var/cache/app-images"
        case .conflictingOptions:
            return
                "\(Setting.diskCachePath) names the folder directly: drop \(Setting.cacheDir) and \(Setting.namespace), or drop \(Setting.diskCachePath)"
        case .noNamespace(let format):
            return
                "\(Setting.namespace) does not apply to \(format): its cache folder has one fixed name; drop \(Setting.namespace), or name another folder with \(Setting.diskCachePath)"
        case .noNamespaceInAny(let formats):
            return
                "\(Setting.namespace) does not apply to \(formats.joined(separator: ", ")): each keeps its cache in a folder of one fixed name; drop \(Setting.namespace)"
        case .oneFolderForSeveralFormats(let formats):
            return
                "\(Setting.diskCachePath) names one format's folder, and \(Setting.cacheFormat) gives \(formats.joined(separator: ", ")): give the caches root with \(Setting.cacheDir) (each format's folder is where its library keeps it), or one format"
        case .sameFolder(let first, let second, let folder):
            return
                "\(first) and \(second) keep their caches in one folder (\(folder)): an app uses one of them: give only one"
        case .noHome:
            return "no cache location: set \(Setting.cacheDir), IMGWARM_CACHE_DIR, XDG_CACHE_HOME or HOME"
        }
    }
}
