import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// The cache location options every command accepts (docs/cache-contract.md §1).
struct CacheLocationOptions: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "The caches root (the app's Library/Caches).",
            discussion: "Default: $IMGWARM_CACHE_DIR, else $XDG_CACHE_HOME, else ~/.cache.",
            valueName: "dir"), completion: .directory)
    var cacheDir: String?

    @Option(
        help: ArgumentHelp(
            "The SDImageCache namespace: the folder is <caches root>/com.hackemist.SDImageCache/<namespace>.",
            discussion:
                "Default: \(CacheLocation.defaultNamespace). One folder name; \(CacheLocation.privateFolderName) is imgwarm's own folder and refused.",
            valueName: "name"))
    var namespace: String?

    @Option(
        name: .customLong("disk-cache-path"),
        help: ArgumentHelp(
            "The disk cache folder itself, for apps that give SDImageCache their own directory.",
            discussion: "Not a folder named \(CacheLocation.privateFolderName) or inside one (imgwarm's own folders).",
            valueName: "path"), completion: .directory)
    var diskCachePath: String?

    /// The resolved location, or a usage failure.
    func location() throws -> CacheLocation {
        do {
            return try CacheLocation.resolve(
                cacheDir: cacheDir, namespace: namespace, diskCachePath: diskCachePath,
                environment: CurrentProcess.environment)
        } catch {
            throw CommandFailure.usage(error.description)
        }
    }
}

/// Where imgwarm's state database is, and how long to wait for another process's lock.
struct StateOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The state database (default <parent of the cache folder>/.imgwarm/<folder name>/state.sqlite).",
            valueName: "path"), completion: .file())
    var state: String?

    @Option(
        name: .customLong("lock-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds to wait for a lock held by another imgwarm before exiting with code 3 (default \(Defaults.seconds(Defaults.lockTimeout))).",
            valueName: "seconds"),
        transform: Parse.seconds("--lock-timeout"))
    var givenLockTimeout: Double?

    /// The wait in force: the one given, else the engine's default.
    var lockTimeout: Double { givenLockTimeout ?? Defaults.lockTimeout }

    func path(for location: CacheLocation) -> String {
        StateStore.path(state, for: location)
    }
}
