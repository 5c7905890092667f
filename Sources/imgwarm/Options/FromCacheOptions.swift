import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `prefetch --from-cache DIR --from-format FORMAT` (docs/usage.md, "Seeding from another
/// cache"): another library's (or version's) cache, read only, whose entries are stored with no
/// request; the lines it does not hold are requested (or, `--offline`, end `no-body`).
struct FromCacheOptions: ParsableArguments {
    @Option(
        name: .customLong("from-cache"),
        help: ArgumentHelp(
            "A caches root to seed from (read only): each line's entry there, named as --from-format names it, is validated and stored with no request; the others are requested.",
            discussion:
                "Its folder is found as --cache-dir's is (--from-namespace; --from-disk-cache-path names the folder itself). Nothing of it is written or touched; its files keep their times where they mean the same in the target format (an expiry stays an expiry).",
            valueName: "dir"), completion: .directory)
    var fromCache: String?

    @Option(
        name: .customLong("from-format"),
        help: ArgumentHelp(
            "The image library whose cache --from-cache is: \(CacheFormats.names.filter { CacheFormats.named($0)?.keepsImageBytes ?? false }.joined(separator: ", ")).",
            valueName: "name"),
        completion: .list(CacheFormats.names), transform: CacheLocationOptions.oneFormat)
    var fromFormat: (any CacheFormat)?

    @Option(
        name: .customLong("from-namespace"),
        help: ArgumentHelp(
            "--namespace of the --from-cache cache (default \(CacheLocation.defaultNamespace)).", valueName: "name"))
    var fromNamespace: String?

    @Option(
        name: .customLong("from-disk-cache-path"),
        help: ArgumentHelp("The folder of the cache to seed from itself (instead of --from-cache).", valueName: "path"),
        completion: .directory)
    var fromDiskCachePath: String?

    /// The source's location, nil without `--from-cache`; a usage failure for an incomplete or
    /// contradictory source, a format that keeps no image bytes, a folder that is not there, or
    /// one `targets` fills.
    func source(targets: [CacheLocation]) throws -> CacheLocation? {
        guard fromCache != nil || fromDiskCachePath != nil else {
            if fromFormat != nil || fromNamespace != nil {
                throw CommandFailure.usage(
                    "--from-format and --from-namespace describe the cache --from-cache reads: give --from-cache DIR (or --from-disk-cache-path)"
                )
            }
            return nil
        }
        guard let format = fromFormat else {
            throw CommandFailure.usage(
                "--from-cache needs --from-format: the library whose cache it is (\(CacheFormats.names.joined(separator: ", ")))"
            )
        }
        guard format.keepsImageBytes else {
            throw CommandFailure.usage(
                "--from-format \(format.name): its cache keeps bodies as they came off the network (maybe gzip-encoded), not the images: it cannot be seeded from"
            )
        }
        if fromCache != nil && fromDiskCachePath != nil {
            throw CommandFailure.usage("--from-cache and --from-disk-cache-path both name the source: give one")
        }
        let source: CacheLocation
        do {
            source = try CacheLocation.resolve(
                cacheDir: fromCache, namespace: fromNamespace, diskCachePath: fromDiskCachePath,
                environment: CurrentProcess.environment, formats: [format])[0]
        } catch {
            throw CommandFailure.usage("--from-cache: \(error.description)")
        }
        guard FormatFanOut.sourceExists(source) else {
            throw CommandFailure.usage("--from-cache: there is no \(format.name) cache folder at \(source.folder)")
        }
        for target in targets where target.folder == source.folder || target.privateFolder == source.privateFolder {
            throw CommandFailure.usage(
                "--from-cache names \(source.folder), the folder this run fills (\(target.format.name)): seed from another folder"
            )
        }
        return source
    }
}
