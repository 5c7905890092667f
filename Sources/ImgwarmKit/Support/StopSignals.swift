import CImgwarmSys

#if canImport(Glibc)
import Glibc
#endif

/// How a run learns it must stop: SIGINT or SIGTERM, recorded by a signal handler that only
/// sets a flag and writes to a pipe (the only things a handler may safely do), so the download
/// loop's poll wakes up at once.
public struct StopSource: Sendable {
    /// Readable when a stop was requested; -1 when there is none to watch.
    public let descriptor: Int32
    private let readSignal: @Sendable () -> Int32

    public init(descriptor: Int32, signal: @escaping @Sendable () -> Int32) {
        self.descriptor = descriptor
        readSignal = signal
    }

    /// The signal that asked to stop (SIGINT = 2, SIGTERM = 15), or 0.
    public var signal: Int32 { readSignal() }

    /// Empties the pipe so a poll on it does not wake up again.
    public func drain() {
        guard descriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Never stops.
    public static let never = StopSource(descriptor: -1) { 0 }

    /// Installs the handlers for this process: the first SIGINT/SIGTERM asks the run to stop
    /// cleanly; a second one ends the process at once (exit 130 or 143).
    public static func installSignalHandlers() -> StopSource {
        let descriptor = imgwarm_stop_install()
        return StopSource(descriptor: descriptor) { imgwarm_stop_signal() }
    }
}
