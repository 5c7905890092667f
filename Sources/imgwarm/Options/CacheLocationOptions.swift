import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// The cache location options every command accepts, but the format (docs/cache-contract.md §1,
/// docs/cache-formats.md for the formats): `CacheLocationOptions` takes one format,
/// `CacheLocationsOptions` several.
struct CacheFolderOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "The caches root (the app's Library/Caches).",
            discussion: "Default: $IMGWARM_CACHE_DIR, else $XDG_CACHE_HOME, else ~/.cache.",
            valueName: "dir"), completion: .directory)
    var cacheDir: String?

    @Option(
        help: ArgumentHelp(
            "The cache's name: SDWebImage's folder is <caches root>/com.hackemist.SDImageCache/<namespace>, Kingfisher's <caches root>/com.onevcat.Kingfisher.ImageCache.<namespace>.",
            discussion:
                "Default: \(CacheLocation.defaultNamespace). One folder name; \(CacheLocation.privateFolderName) is imgwarm's own folder and refused. Formats with a fixed folder name (\(FormatHelp.formatsWithoutNamespace.joined(separator: ", "))) take none.",
            valueName: "name"))
    var namespace: String?

    @Option(
        name: .customLong("disk-cache-path"),
        help: ArgumentHelp(
            "The disk cache folder itself, for apps that give their image cache their own directory.",
            discussion: "Not a folder named \(CacheLocation.privateFolderName) or inside one (imgwarm's own folders).",
            valueName: "path"), completion: .directory)
    var diskCachePath: String?

    @Option(
        help: ArgumentHelp(
            "\(FormatHelp.formatsWithDatabase.joined(separator: ", ")): the library's database (default <parent of the cache folder>/libCachedImageData.db).",
            discussion:
                "On a device the files folder is <cacheDir or Library/Caches>/libCachedImageData and the database is <app support folder>/libCachedImageData.db (Android: files/, iOS: Library/Application Support/). Only for formats with a database.",
            valueName: "path"), completion: .file())
    var database: String?

    /// The folders of `formats` (`CacheLocation.resolve(formats:)`), `--database` given to the
    /// formats that take it (refused only when none does), or a usage failure.
    func locations(of formats: [any CacheFormat]) throws -> [CacheLocation] {
        var formats = formats
        if let database {
            guard !database.isEmpty else { throw CommandFailure.usage("--database needs a path") }
            var taken = false
            var firstRefusal: OptionNotApplicable?
            for (index, format) in formats.enumerated() {
                do {
                    formats[index] = try CacheFormats.format(format, withDatabaseAt: database)
                    taken = true
                } catch {
                    firstRefusal = firstRefusal ?? error
                }
            }
            if !taken, let firstRefusal {
                throw CommandFailure.usage(
                    formats.count == 1
                        ? "--database does not apply to \(firstRefusal.format): its library keeps no database"
                        : "--database does not apply to \(formats.map(\.name).joined(separator: ", ")): their libraries keep no database"
                )
            }
        }
        do {
            return try CacheLocation.resolve(
                cacheDir: cacheDir, namespace: namespace, diskCachePath: diskCachePath,
                environment: CurrentProcess.environment, formats: formats)
        } catch {
            throw CommandFailure.usage(error.description)
        }
    }
}

/// The one-format `--cache-format` and the folder options: for the commands that work on one
/// cache (`prefetch`, `path`, `keys detect`, `merge`, `blacklist`, `push`).
struct CacheLocationOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-format"),
        help: CacheLocationOptions.formatHelp(
            "(default \(CacheFormats.all[0].name); push: one of Android's, no default)."),
        // Shell completion offers the registry's names, never a list kept by hand.
        completion: .list(CacheFormats.names), transform: CacheLocationOptions.oneFormat)
    var givenFormat: (any CacheFormat)?

    @OptionGroup var folder: CacheFolderOptions

    /// The format in force: the one given, else SDWebImage's.
    var format: any CacheFormat { givenFormat ?? CacheFormats.all[0] }

    var cacheDir: String? { folder.cacheDir }
    var namespace: String? { folder.namespace }
    var diskCachePath: String? { folder.diskCachePath }

    /// One format's name; a list (`a,b`) is refused: this command works on one cache.
    static func oneFormat(_ text: String) throws -> any CacheFormat {
        guard text.contains(",") else { return try format(text) }
        let names = try CacheLocationsOptions.formats(text).map(\.name)
        throw ValidationError(
            "--cache-format gives \(names.joined(separator: ", ")): this command works on one cache; give one format (prefetch, verify, stats, clean and pack take several)"
        )
    }

    /// `--cache-format`'s help, the same for one format and several but for `rule` (the default,
    /// and what the command takes).
    static func formatHelp(_ rule: String) -> ArgumentHelp {
        ArgumentHelp(
            "The image library whose disk cache this is: \(CacheFormats.names.joined(separator: ", ")) \(rule)",
            discussion: "docs/cache-formats.md says where each keeps its folder and how it names its files.",
            valueName: "name")
    }

    static func format(_ text: String) throws -> any CacheFormat {
        guard let format = CacheFormats.named(text.lowercased()) else {
            throw ValidationError(
                "unknown cache format '\(text)': use one of \(CacheFormats.names.joined(separator: ", "))")
        }
        return format
    }

    /// The resolved location, or a usage failure.
    func location() throws -> CacheLocation {
        try folder.locations(of: [format])[0]
    }
}

/// `--cache-format` of several formats (comma-separated or repeated) and the folder options: for
/// `verify`, `stats`, `clean` and `pack` (docs/usage.md, "Several formats").
struct CacheLocationsOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-format"),
        help: CacheLocationOptions.formatHelp(
            "(default \(CacheFormats.all[0].name)); several, comma-separated or repeated, each folder in turn."),
        // Shell completion offers the registry's names, never a list kept by hand.
        completion: .list(CacheFormats.names), transform: CacheLocationsOptions.formats)
    var givenFormatLists: [[any CacheFormat]] = []

    @OptionGroup var folder: CacheFolderOptions

    /// The formats given, in their order, each once (`--cache-format a,b --cache-format c`).
    var givenFormats: [any CacheFormat] {
        var formats: [any CacheFormat] = []
        for format in givenFormatLists.joined() where !formats.contains(where: { $0.name == format.name }) {
            formats.append(format)
        }
        return formats
    }

    /// The first format given, else SDWebImage's.
    var format: any CacheFormat { givenFormats.first ?? CacheFormats.all[0] }

    var cacheDir: String? { folder.cacheDir }

    /// `a,b`: the formats of one `--cache-format`.
    static func formats(_ text: String) throws -> [any CacheFormat] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { name in
            guard !name.isEmpty else {
                throw ValidationError(
                    "--cache-format '\(text)' has an empty name: separate names with one comma, e.g. --cache-format sdwebimage,kingfisher"
                )
            }
            return try CacheLocationOptions.format(String(name))
        }
    }

    /// The resolved locations, one a format given (SDWebImage's when none was), or a usage failure.
    func locations() throws -> [CacheLocation] {
        try folder.locations(of: givenFormats.isEmpty ? [CacheFormats.all[0]] : givenFormats)
    }
}

/// Where imgwarm's state database is, and how long to wait for another process's lock.
struct StateOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The state database (default <parent of the cache folder>/.imgwarm/<folder name>/state.sqlite).",
            valueName: "path"), completion: .file())
    var state: String?

    @OptionGroup var lockTimeoutOption: LockTimeoutOption

    /// The wait in force: the one given, else the engine's default.
    var lockTimeout: Double { lockTimeoutOption.lockTimeout }

    func path(for location: CacheLocation) -> String {
        StateStore.path(state, for: location)
    }

    /// Refuses `--state` with several formats' caches (`stats`, `clean`): it names one database,
    /// and each format's state is its own.
    func refuseWithSeveral(_ locations: [CacheLocation]) throws {
        guard locations.count > 1, state != nil else { return }
        throw CommandFailure.usage(
            "--state names one database, and --cache-format gives \(locations.map(\.format.name).joined(separator: ", ")): each format's state is its own; drop --state"
        )
    }
}

/// How long to wait for another process's cache lock (`--lock-timeout`), for the commands that
/// take it without a state database (`pack`, `push`) and, through `StateOptions`, the others.
struct LockTimeoutOption: ParsableArguments {
    @Option(
        name: .customLong("lock-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds to wait for a lock held by another imgwarm before exiting with code 3 (default \(Defaults.seconds(Defaults.lockTimeout))).",
            valueName: "seconds"),
        transform: Parse.seconds("--lock-timeout"))
    var givenLockTimeout: Double?

    /// The wait in force: the one given, else the engine's default.
    var lockTimeout: Double { givenLockTimeout ?? Defaults.lockTimeout }
}
