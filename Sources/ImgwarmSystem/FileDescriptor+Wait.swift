#if canImport(Glibc)
    import Glibc
#endif

extension FileDescriptor {
    /// Waits until this descriptor has something to read (or its end, or an error) or `stop`
    /// becomes readable, whichever comes first; true when this one is ready. A read of a pipe
    /// or a terminal can block for ever (a producer that stalls), and a signal does not end it
    /// (the stop handlers restart system calls): this is how such a read stays interruptible.
    /// A regular file is always ready, so the call costs one `poll` a read.
    public func waitReadable(unlessReadable stop: FileDescriptor) -> Bool {
        var descriptors = [
            pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stop.rawValue, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let result = poll(&descriptors, 2, -1)
            if result < 0 && errno == EINTR { continue }
            // A poll that fails lets the read say why.
            if result < 0 { return true }
            if descriptors[1].revents != 0 { return false }
            return true
        }
    }
}

extension FileDescriptor {
    /// What a bounded wait ended with.
    public enum Wait: Sendable, Equatable {
        /// This descriptor has something to read (or its end, or an error).
        case ready
        /// `stop` became readable first.
        case stopped
        /// Nothing came within the time.
        case timedOut
    }

    /// Waits at most `seconds` until this descriptor has something to read or `stop` (when
    /// given) becomes readable.
    public func waitReadable(unlessReadable stop: FileDescriptor?, atMost seconds: Double) -> Wait {
        var descriptors = [
            pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stop?.rawValue ?? -1, events: Int16(POLLIN), revents: 0),
        ]
        let deadline = Monotonic.now() + seconds
        while true {
            let left = max(0, deadline - Monotonic.now())
            let result = poll(&descriptors, 2, Int32(clamping: Int((left * 1000).rounded(.up))))
            if result < 0 && errno == EINTR { continue }
            // A poll that fails lets the read say why.
            if result < 0 { return .ready }
            if descriptors[1].revents != 0 { return .stopped }
            if descriptors[0].revents != 0 { return .ready }
            if left <= 0 { return .timedOut }
        }
    }
}
