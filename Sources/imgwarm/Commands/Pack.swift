import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm pack`: the cache as one archive laid out as the app's data container (docs/pack.md).
struct Pack: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the cache as one tar archive laid out as the app's data container.",
        discussion: """
            The archive (POSIX pax tar) holds the cache folder where the app keeps it, relative to \
            its data container: iOS Library/Caches/<folder>, Android cache/<folder>, and the files \
            a library keeps outside its folder (flutter's database: iOS Library/Application \
            Support/, Android files/). Its first member is imgwarm-manifest.json \
            (docs/pack-manifest.schema.json): every file with its size and times.

            Each file keeps its modification and access times (to the nanosecond, in pax \
            headers), mode 0600 (folders 0700), owner 0 and no owner names. The same cache packs \
            to the same bytes: names are sorted and nothing of the machine or the moment is \
            written, so CI can cache and diff the archive.

            pack reads the cache under its lock (held exclusively: no prefetch or clean changes it \
            meanwhile) and changes nothing: reading a file does not move its access time. A \
            cache folder that does not exist is refused, and so is a format of the other \
            platform (exit 2). Only regular files and folders are packed: each file's type is \
            checked before it is opened and again once open, so a link, FIFO or device node in \
            the folder (or swapped in while packing) fails the pack with exit 3, naming it, and is \
            never opened or waited on. A stop signal ends the pack, removes the partial archive \
            and exits with 128+N. With --output -, a reader that goes away before the archive's \
            end (a closed pipe) ends it with exit code 141, as SIGPIPE would: the cache is fine.

            Several formats (--cache-format sdwebimage,kingfisher, or the option repeated), \
            each folder under one caches root: one archive holds every format's folder (and the \
            files it keeps outside it) where its library keeps it, and the manifest lists them \
            (caches); every cache's lock is held while packing, taken in the order of their \
            paths. Each format must be one of --platform's (another is refused, naming it), and \
            --bundle-id applies to the formats whose library reads the app's preferences.

            On an iOS simulator (on the Mac, not imgwarm: tar there keeps the times):
              tar -x -p -f seed.tar -C "$(xcrun simctl get_app_container booted BUNDLE data)"
            On Android, imgwarm push puts the cache into a debuggable app's container.

            Examples:
              imgwarm pack --platform ios --cache-format kingfisher --cache-dir seed \\
                --output seed.tar
              imgwarm pack --platform android --cache-format glide \\
                --cache-dir seed --output - | tar -t
              imgwarm pack --platform ios --cache-format sdwebimage,kingfisher \\
                --cache-dir seed --output seed.tar
            """)

    @OptionGroup var location: CacheLocationsOptions

    @Option(
        help: ArgumentHelp(
            "Whose container layout the archive follows: \(AppContainer.Platform.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "platform"),
        completion: .list(AppContainer.Platform.allCases.map(\.rawValue)), transform: Pack.platform)
    var platform: AppContainer.Platform

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("The archive to write; - is standard output.", valueName: "file"), completion: .file())
    var output: String

    @Option(
        help: ArgumentHelp(
            "Also write the manifest (imgwarm-manifest.json, the archive's first member) to this file.",
            valueName: "file"), completion: .file())
    var manifest: String?

    @Option(
        help: ArgumentHelp(
            "iOS, for \(Pack.preferenceFormats): the app's bundle identifier; the archive also holds the app's preferences file (Library/Preferences/<id>.plist) with the key its library checks at launch (PINRemoteImage deletes its folder without it). For an app that has never run: extracting replaces that file.",
            valueName: "id"))
    var bundleID: String?

    @OptionGroup var lockTimeoutOption: LockTimeoutOption
    @OptionGroup var quietOption: QuietOption

    /// The formats whose library reads the app's preferences, from the registry.
    static var preferenceFormats: String { PackJob.bundleIDFormats.joined(separator: ", ") }

    static func platform(_ text: String) throws -> AppContainer.Platform {
        guard let platform = AppContainer.Platform(rawValue: text.lowercased()) else {
            throw ValidationError(
                "unknown platform '\(text)': use one of \(AppContainer.Platform.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return platform
    }

    func run() throws {
        let locations = try location.locations()
        for (option, path) in [("--output", output), ("--manifest", manifest ?? "-")] where path != "-" {
            if path.isEmpty { throw CommandFailure.usage("\(option) '' names no file: give a path") }
            for location in locations {
                if let inside = location.forbiddenOutput(path, statePath: StateStore.path(nil, for: location)) {
                    throw CommandFailure.usage("\(option) \(path) is inside \(inside): choose a path outside it")
                }
            }
        }
        if output == "-" && manifest == "-" {
            throw CommandFailure.usage("--output - already uses standard output: give --manifest a file")
        }
        if output == "-" && FileDescriptor.standardOutput.isTerminal {
            throw CommandFailure.usage(
                "--output - would write the archive to the terminal: redirect it, or name a file")
        }
        if let bundleID {
            do {
                try PackJob.checkBundleID(bundleID, platform: platform, formats: locations.map(\.format))
            } catch .notForPlatform {
                throw CommandFailure.usage("--bundle-id is for --platform ios (an app's preferences file on iOS)")
            } catch .notApplicable(let option) {
                let readers =
                    locations.count > 1
                    ? "the libraries of \(option.format) read" : "\(option.format)'s library reads"
                throw CommandFailure.usage(
                    "--bundle-id applies to \(option.appliesTo.joined(separator: ", ")) only: \(readers) nothing from the app's preferences"
                )
            } catch .notABundleID(let id) {
                throw CommandFailure.usage(
                    "--bundle-id '\(EscapedText.escaped(id))' is not a bundle identifier (letters, digits, '-' and '.')"
                )
            }
        }
        let archive = try ReportFile.openForCommand(output, what: "the archive")
        let result = try Pack.pack(
            locations: locations, platform: platform, bundleID: bundleID, lockTimeout: lockTimeoutOption.lockTimeout
        ) {
            archive.write($0)
        }
        do {
            try archive.commit()
            if let manifest {
                let file = try ReportFile.openForCommand(manifest, what: "the manifest")
                file.write(result.manifest)
                try file.commit()
            }
        } catch let error as ReportFile.OpenError {
            if error.path == "-" && error.reason == .system(.brokenPipe) {
                // `--output - | head`: the cache is fine; the archive's reader went away, as a
                // closed pipe ends any writer (SIGPIPE's exit code), not exit 3.
                throw CommandFailure(
                    message:
                        "the archive was cut short: its reader on standard output went away (a closed pipe) before the archive's end",
                    status: .brokenPipe)
            }
            throw CommandFailure.cache(error.description)
        }
        // One line a cache, in the order given.
        for cache in result.caches where output != "-" && !quietOption.quiet {
            Console.error(
                "packed \(cache.files) files (\(Quantities.formatBytes(cache.bytes))) of \(cache.folder) as \(cache.containerFolder) into \(output)"
            )
        }
    }

    /// Runs the job, its failures worded with their exit codes.
    static func pack(
        locations: [CacheLocation], platform: AppContainer.Platform, bundleID: String? = nil, lockTimeout: Double,
        sink: @escaping PaxArchive.Sink
    ) throws -> PackJob.Result {
        var configuration = PackJob.Configuration(platform: platform)
        configuration.lockTimeout = lockTimeout
        configuration.bundleID = bundleID
        configuration.stop = StopSource.installSignalHandlers()
        do {
            return try PackJob(locations: locations, configuration: configuration).run(sink: sink)
        } catch {
            switch error {
            case .layout, .otherPlatform: throw CommandFailure.usage(error.description)
            case .stopped(let signal): throw CommandFailure(message: error.description, status: .stopped(by: signal))
            default: throw CommandFailure.cache(EscapedText.escaped(error.description))
            }
        }
    }
}
