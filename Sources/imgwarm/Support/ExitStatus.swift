import ImgwarmKit

/// imgwarm's exit codes (README, "The report" and "Exit codes"), the same for every command.
enum ExitStatus: Int32, Error {
    /// Every URL ended in the cache; the command did all it was asked.
    case success = 0
    /// Some URLs failed, were blacklisted or invalid (the rest of the run went on).
    case partial = 1
    /// Usage error or unreadable input: nothing was done.
    case usage = 2
    /// The cache or the state could not be used: not writable, disk full, a lock held too long.
    case cacheUnusable = 3
    /// Interrupted by SIGINT (130) or SIGTERM (143).
    case interrupted = 130
    case terminated = 143

    static let helpText = """
        Exit codes:
          0    every URL ended in the cache, or the command did all it was asked
          1    some URLs failed, were blacklisted or were invalid; the rest went on
          2    usage error or unreadable input: nothing was done
          3    cache or state unusable: not writable, disk full, lock held too long
          130  interrupted by SIGINT; 143 terminated by SIGTERM
        """
}

/// A run-level failure: a message for standard error and the exit code it maps to.
struct CommandFailure: Error {
    var message: String
    var status: ExitStatus

    static func usage(_ message: String) -> CommandFailure { CommandFailure(message: message, status: .usage) }
    static func cache(_ message: String) -> CommandFailure { CommandFailure(message: message, status: .cacheUnusable) }
}

extension ReportFile {
    /// Opens a `--report` destination; an unwritable path is a usage error, before any work.
    static func openForCommand(_ path: String) throws -> ReportFile {
        do {
            return try ReportFile(path: path)
        } catch {
            throw CommandFailure.usage(error.description)
        }
    }
}
