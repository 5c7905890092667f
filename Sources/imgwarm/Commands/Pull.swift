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
            with the modification times kept, so that imgwarm verify and imgwarm keys detect read \
            what the app really has. The app is not stopped: pull only reads. --output must be a \
            new or empty folder; a failure leaves it as it was.

            \(AdbOptions.testedText)

            Examples:
              imgwarm pull --package com.example.app --cache-format glide --output pulled
              imgwarm verify --cache-format glide --cache-dir pulled/cache ci/images.txt
            """)

    @Option(
        name: .customLong("cache-format"),
        help: ArgumentHelp(
            "The image library whose cache to pull: \(CacheFormats.names.joined(separator: ", ")) (default \(CacheFormats.all[0].name)).",
            valueName: "name"),
        transform: CacheLocationOptions.format)
    var format: (any CacheFormat)?

    @Option(help: ArgumentHelp("The cache's name, for the formats that take one (default default).", valueName: "name"))
    var namespace: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("The local folder to pull into (new or empty).", valueName: "dir"))
    var output: String

    @OptionGroup(title: "Device") var adbOptions: AdbOptions
    @OptionGroup var quietOption: QuietOption

    func run() throws {
        let format = format ?? CacheFormats.all[0]
        if namespace != nil && !format.hasNamespace {
            throw CommandFailure.usage(
                "--namespace does not apply to \(format.name): its cache folder has one fixed name")
        }
        let job = PullJob(format: format, namespace: namespace, device: try adbOptions.device(), output: output)
        let folder: String
        do {
            folder = try job.run()
        } catch {
            throw CommandFailure.cache(error.description)
        }
        guard !quietOption.quiet else { return }
        Console.error("pulled the app's \(job.parts.joined(separator: " and ")) into \(output): \(folder)")
    }
}
