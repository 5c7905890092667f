import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `imgwarm pull`: a debuggable Android app's cache into a local folder (docs/pack.md, "Android").
struct Pull: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a debuggable Android app's cache folder into a local folder through adb.",
        discussion: """
            pull checks the device, the app and run-as as push does, then copies the cache folder \
            of --cache-format (and flutter's database) out of the app's container (adb exec-out \
            run-as PKG tar -c) into --output, laid out as the container (cache/<folder>, files/), \
            with the modification and access times kept, so that imgwarm verify and imgwarm keys \
            detect read what the app really has. The app is not stopped: pull only reads.

            The device is untrusted: imgwarm reads its tar stream itself and creates only the \
            regular files and folders of the cache's own folders (files 0600, folders 0700, owned \
            by you); a link, device node, FIFO, setuid file or a name outside those folders fails \
            the pull, naming it. A pull is complete or absent: the stream must end with its \
            end-of-archive blocks and be at most --stream-limit bytes, with no silence longer \
            than --stall-timeout; it is laid out in a private folder beside --output and renamed \
            into place only when whole. --output must be a new name in an existing folder, or an \
            empty folder (else exit 2, before adb runs); a failure, or a stop signal (which also \
            ends adb), leaves it as it was (not created when it did not exist) and exits with 3 \
            (128+N for signal N).

            \(AdbOptions.testedText)

            Examples:
              imgwarm pull --package com.example.app --cache-format glide --output pulled
              imgwarm verify --cache-format glide --cache-dir pulled/cache ci/images.txt
            """)

    @Option(
        name: .customLong("cache-format"),
        help: ArgumentHelp(
            "The image library whose cache to pull, one of Android's: \(CacheFormats.names(on: .android).joined(separator: ", ")).",
            valueName: "name"),
        transform: CacheLocationOptions.format)
    var format: (any CacheFormat)?

    @Option(help: ArgumentHelp("The cache's name, for the formats that take one (default default).", valueName: "name"))
    var namespace: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("The local folder to pull into (new or empty).", valueName: "dir"))
    var output: String

    @Option(
        name: .customLong("stream-limit"),
        help: ArgumentHelp(
            "The most bytes the device may send, e.g. 2GiB; past it the copy stops (default \(Quantities.formatSize(PullJob.Configuration().streamLimit))).",
            valueName: "size"),
        transform: Parse.size)
    var streamLimit: UInt64?

    @Option(
        name: .customLong("stall-timeout"),
        help: ArgumentHelp(
            "Seconds the device may send nothing before the copy stops (default \(Defaults.seconds(PullJob.Configuration().stallTimeout))).",
            valueName: "seconds"),
        transform: Parse.seconds("--stall-timeout"))
    var stallTimeout: Double?

    @OptionGroup(title: "Device") var adbOptions: AdbOptions
    @OptionGroup var quietOption: QuietOption

    /// The job's bounds: the options given, the engine's defaults for the rest.
    var configuration: PullJob.Configuration {
        var configuration = PullJob.Configuration()
        if let streamLimit { configuration.streamLimit = streamLimit }
        if let stallTimeout { configuration.stallTimeout = stallTimeout }
        return configuration
    }

    func run() throws {
        let format = try AdbOptions.androidFormat(format, command: "pull")
        do {
            try CacheLocation.validate(namespace: namespace, for: format)
        } catch .noNamespace {
            throw CommandFailure.usage(
                "--namespace does not apply to \(format.name): its cache folder has one fixed name")
        } catch {
            throw CommandFailure.usage("--namespace: " + EscapedText.escaped(error.description))
        }
        if output.isEmpty { throw CommandFailure.usage("--output '' names no folder: give a path") }
        if streamLimit == 0 {
            throw CommandFailure.usage("--stream-limit 0 would take nothing: give a size, e.g. 2GiB")
        }
        if stallTimeout == 0 {
            throw CommandFailure.usage("--stall-timeout 0 would stop every copy: give seconds, e.g. 60")
        }
        let device = try adbOptions.device()
        let job = PullJob(
            format: format, namespace: namespace, device: device, output: output, configuration: configuration)
        let folder: String
        do {
            folder = try job.run()
        } catch {
            switch error {
            case .outputNotEmpty, .noParent: throw CommandFailure.usage(EscapedText.escaped(error.description))
            case .device(.stopped(let signal)): throw AdbOptions.failure(error.description, stopped: signal)
            default: throw AdbOptions.failure(error.description, stopped: nil)
            }
        }
        guard !quietOption.quiet else { return }
        Console.error("pulled the app's \(job.parts.joined(separator: " and ")) into \(output): \(folder)")
    }
}
