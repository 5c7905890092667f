import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

@main
struct Imgwarm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgwarm",
        abstract: "Warm the image disk caches of iOS, Android and Flutter apps from lists of image URLs.",
        discussion: """
            imgwarm downloads images, validates each one, and stores it exactly where and how the \
            app's image library would in its disk cache, so the app finds them as its own cache \
            hits. --cache-format names the library: \(FormatHelp.libraries). It also trims and \
            expires those caches on demand as each library does (clean), says what is in them \
            (stats) and whether the app would find each image (verify).

            \(ExitStatus.helpText)
            """,
        version: ImgwarmVersion.current,
        subcommands: [
            Prefetch.self, Path.self, Stats.self, Clean.self, Verify.self, Keys.self, Pack.self, Push.self, Pull.self,
            Merge.self,
            Blacklist.self,
            Version.self,
        ])

    /// Runs the command line and exits with imgwarm's exit codes (usage errors are 2, not 64).
    static func main() {
        // A reader that goes away (`imgwarm path … | head -1`) makes writes fail with EPIPE, which
        // `Console` and the reports handle, rather than killing the process mid-run.
        ProcessTuning.ignoreBrokenPipe()
        SettingFlags.install()
        let status = execute(Array(CommandLine.arguments.dropFirst()))
        CurrentProcess.exit(status.rawValue)
    }

    /// Parses and runs one command line, writing to the standard streams of the calling thread's
    /// `ProcessContext`: what `main` does but for the process-wide set-up and ending the process
    /// (the tests run commands in-process through it, in a context that spells settings as
    /// `SettingFlags` does).
    static func execute(_ arguments: [String]) -> ExitStatus {
        let status: ExitStatus
        do {
            try checkHelpTopic(arguments)
            var command = try parseAsRoot(arguments)
            // The stop signals are handled from the first instruction (CImgwarmStart): a
            // prefetch keeps them and ends with a report, whenever they came; pack, push and pull
            // keep them to end adb and remove their scratch; the other commands stop the way any
            // program does (a signal already received ends the process here).
            if !(command is Prefetch || command is Pack || command is Push || command is Pull) {
                StopSignals.release()
            }
            try command.run()
            status = .success
        } catch let failure as CommandFailure {
            Console.error(failure.message)
            status = failure.status
        } catch let exit as ExitStatus {
            status = exit
        } catch {
            if exitCode(for: error) == .success {
                Console.output(fullMessage(for: error) + "\n")
                status = .success
            } else {
                Console.writeError(fullMessage(for: error) + "\n")
                status = .usage
            }
        }
        Console.flush()
        return status
    }

    /// `imgwarm help TOPIC…` names commands that exist: argument-parser prints the top-level help
    /// and exits 0 for any word it does not know, which hides a typo in a script.
    static func checkHelpTopic(_ arguments: [String]) throws {
        guard arguments.first == "help" else { return }
        let words = arguments.dropFirst().filter { !$0.hasPrefix("-") }
        for count in 0..<words.count {
            let parent = Array(words.prefix(count))
            let known = commandNames(under: parent)
            guard !known.contains(words[words.startIndex + count]) else { continue }
            let path = (["imgwarm"] + parent).joined(separator: " ")
            let list = known.isEmpty ? "it has no subcommands" : "its commands are " + known.joined(separator: ", ")
            throw CommandFailure.usage("'\(path)' has no command '\(words[words.startIndex + count])': \(list)")
        }
    }

    /// The names of the subcommands of `imgwarm PATH…`.
    static func commandNames(under path: [String]) -> [String] {
        var level = Imgwarm.configuration.subcommands
        for word in path {
            guard let match = level.first(where: { $0._commandName == word }) else { return [] }
            level = match.configuration.subcommands
        }
        return level.map { $0._commandName }
    }
}
