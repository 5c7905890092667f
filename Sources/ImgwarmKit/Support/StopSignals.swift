import ImgwarmSystem

/// How a run learns it must stop: SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2 or SIGTERM, recorded
/// by a signal handler that only sets a flag and writes to a pipe, so the download loop's poll
/// wakes up at once.
public struct StopSource: Sendable {
    /// Readable when a stop was requested; nil when there is none to watch.
    public let descriptor: FileDescriptor?
    private let readSignal: @Sendable () -> Int32

    public init(descriptor: FileDescriptor?, signal: @escaping @Sendable () -> Int32) {
        self.descriptor = descriptor
        readSignal = signal
    }

    /// The signal that asked to stop (SIGHUP = 1, SIGINT = 2, SIGQUIT = 3, SIGUSR1 = 10,
    /// SIGUSR2 = 12, SIGTERM = 15), or 0.
    public var signal: Int32 { readSignal() }

    /// Empties the pipe so a poll on it does not wake up again.
    public func drain() {
        if let descriptor { StopSignals.drain(descriptor) }
    }

    /// Never stops.
    public static let never = StopSource(descriptor: nil) { 0 }

    /// Installs the handlers for this process: the first stop signal asks the run to stop
    /// cleanly; a second one ends the process at once (exit 128 + its number). A signal other
    /// than SIGTERM that was ignored on entry stays ignored. A command run in-process
    /// (`ProcessContext`) does not own the signals: it never stops.
    public static func installSignalHandlers() -> StopSource {
        guard ProcessContext.current == nil else { return .never }
        return StopSource(descriptor: StopSignals.install()) { StopSignals.received }
    }
}
