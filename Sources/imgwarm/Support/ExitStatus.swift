import ImgwarmKit
import ImgwarmSystem

/// imgwarm's exit codes (docs/usage.md, "The report" and "Exit codes"), the same for every command.
enum ExitStatus: Int32, Error {
    /// Every URL ended in the cache; the command did all it was asked.
    case success = 0
    /// Some URLs failed, were blacklisted or invalid (the rest of the run went on).
    case partial = 1
    /// Usage error or unreadable input: nothing was done.
    case usage = 2
    /// The cache or the state could not be used: not writable, disk full, a lock held too long.
    case cacheUnusable = 3
    /// Stopped by a signal: 128 + its number (`prefetch` writes its report first).
    case hangup = 129
    case interrupted = 130
    case quit = 131
    case userSignal1 = 138
    case userSignal2 = 140
    /// `pack --output -`: the reader of standard output went away before the archive's end (a
    /// closed pipe): the exit code SIGPIPE would have given (128 + 13).
    case brokenPipe = 141
    case terminated = 143

    /// The exit code of a run that `signal` stopped (SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2 or
    /// SIGTERM, the signals `StopSignals` handles).
    static func stopped(by signal: Int32) -> ExitStatus {
        ExitStatus(rawValue: 128 + signal) ?? .interrupted
    }

    /// The name of a stop signal, for messages ("SIGHUP").
    static func signalName(_ signal: Int32) -> String { StopSignals.name(of: signal) }

    static let helpText = """
        Exit codes:
          0    every URL ended in the cache, or the command did all it was asked
          1    some URLs failed, were blacklisted or were invalid; the rest went on
               (a proxy that cannot be reached stops the run, naming it)
          2    usage error or unreadable input: nothing was done
          3    cache or state unusable: not writable, disk full, lock held too long
          128+N  stopped by signal N: 129 SIGHUP, 130 SIGINT, 131 SIGQUIT,
                 138 SIGUSR1, 140 SIGUSR2, 143 SIGTERM
        """
}

/// The one table from the engine's run-level errors to exit codes.
extension ExitStatus {
    /// The exit code of a prefetch that could not start or go on: a list that cannot be read is a
    /// usage error; the rest is the cache's or the state's.
    static func of(_ error: PrefetchJob.Error) -> ExitStatus {
        switch error {
        case .unreadableInput: return .usage
        case .cacheFolder, .spoolFolder, .state, .curl: return .cacheUnusable
        }
    }

    /// The exit code of a clean that could not be done: a folder it refuses or an expiry the file
    /// system cannot tell is a usage error; the rest is the cache's.
    static func ofClean(_ error: DiskCacheError) -> ExitStatus {
        switch error {
        case .noBirthTime, .protectedFolder, .foreignFolder: return .usage
        case .notADirectory, .unreadable, .locked, .index: return .cacheUnusable
        }
    }

    /// The exit code of a verify that could not judge the keys: a list that cannot be read is a
    /// usage error; a folder imgwarm cannot read is the cache's.
    static func of(_ error: VerifyJob.Error) -> ExitStatus {
        switch error {
        case .unreadableInput: return .usage
        case .unreadableFolder: return .cacheUnusable
        }
    }

    /// The exit code of a merge that could not be done: a source that names no cache of the
    /// format (missing, of another format, the destination itself) is a usage error; the rest is
    /// the caches'.
    static func of(_ error: MergeJob.Error) -> ExitStatus {
        switch error {
        case .unsupportedFormat, .sourceIsDestination, .missingSource, .otherFormat: return .usage
        case .unreadableSource, .destination, .index, .store, .state, .locked: return .cacheUnusable
        }
    }

    /// The exit code of a prefetch that a run-level problem halted.
    static func of(_ halt: PrefetchJob.Halt) -> ExitStatus {
        switch halt {
        case .diskFull, .lockTimeout, .stateFailure, .indexFailure: return .cacheUnusable
        // The URLs are not in the cache; nothing is wrong with it.
        case .proxy: return .partial
        }
    }
}

/// A run-level failure: a message for standard error and the exit code it maps to.
struct CommandFailure: Error {
    var message: String
    var status: ExitStatus

    static func usage(_ message: String) -> CommandFailure { CommandFailure(message: message, status: .usage) }
    static func cache(_ message: String) -> CommandFailure { CommandFailure(message: message, status: .cacheUnusable) }
}

extension CommandFailure {
    /// A prefetch's run-level error, in its words, with its exit code.
    init(_ error: PrefetchJob.Error) { self.init(message: error.description, status: .of(error)) }

    /// A prefetch's halt, in its words, with its exit code.
    init(halt: PrefetchJob.Halt) { self.init(message: halt.description, status: .of(halt)) }
}

extension ReportFile {
    /// Opens a `--report` destination; an unwritable path is a usage error, before any work.
    static func openForCommand(_ path: String) throws -> ReportFile { try openForCommand(path, what: "the report") }

    /// Opens a destination of `what` (`the archive`) the same way.
    static func openForCommand(_ path: String, what: String) throws -> ReportFile {
        do {
            return try ReportFile(path: path, what: what)
        } catch {
            if case .system(let cause) = error.reason, cause.isInterrupted, StopSignals.received != 0 {
                // A FIFO nobody read when the signal came: the run stops before it began.
                let signal = StopSignals.received
                throw CommandFailure(
                    message:
                        "interrupted by \(ExitStatus.signalName(signal)) while \(path) (a FIFO) waited for a reader: nothing was done",
                    status: .stopped(by: signal))
            }
            throw CommandFailure.usage(error.description)
        }
    }
}

extension ReportFile {
    /// Runs `finish` (a document's end): a reader that went away is no error (`--json | head`:
    /// the reader has what it wanted; the verdict stands), another failure is the cache's.
    static func finishForCommand(_ finish: () throws(OpenError) -> Void) throws {
        do {
            try finish()
        } catch  where error.readerWentAway {
            // Nobody to tell: the command's own exit code stands.
        } catch {
            throw CommandFailure.cache(error.description)
        }
    }
}

extension ReportFile.OpenError {
    /// The report went to standard output and its reader went away (`| head`, EPIPE): there is
    /// nobody to tell, and the command's own exit code stands.
    var readerWentAway: Bool { path == "-" && reason == .system(.brokenPipe) }
}
