import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

@main
struct Imgwarm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgwarm",
        abstract: "Warm SDWebImage disk caches from lists of image URLs.",
        discussion: """
            imgwarm downloads images, validates each one, and stores it exactly where and how \
            SDWebImage's disk cache would, so an app using SDWebImage finds them as its own cache \
            hits. It also trims and expires that cache on demand.

            \(ExitStatus.helpText)
            """,
        version: ImgwarmVersion.current,
        subcommands: [Prefetch.self, Path.self, Stats.self, Clean.self, Blacklist.self, Version.self])

    /// Runs the command line and exits with imgwarm's exit codes (usage errors are 2, not 64).
    static func main() {
        // A reader that goes away (`imgwarm path … | head -1`) makes writes fail with EPIPE, which
        // `Console` and the reports handle, rather than killing the process mid-run.
        ProcessTuning.ignoreBrokenPipe()
        let status: ExitStatus
        do {
            var command = try parseAsRoot()
            try command.run()
            status = .success
        } catch let failure as CommandFailure {
            Console.error(failure.message)
            status = failure.status
        } catch let exit as ExitStatus {
            status = exit
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                status = .success
            } else {
                Console.writeError(fullMessage(for: error) + "\n")
                status = .usage
            }
        }
        Console.flush()
        CurrentProcess.exit(status.rawValue)
    }
}
