#if canImport(Glibc)
    import Glibc
#endif

/// A wall-clock instant with nanosecond precision, as the file system records them.
public struct Timestamp: Comparable, Hashable, Sendable {
    public var seconds: Int64
    public var nanoseconds: Int64

    public init(seconds: Int64, nanoseconds: Int64 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    package init(_ time: timespec) {
        self.init(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec))
    }

    /// The current wall-clock time.
    public static func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Timestamp(time)
    }

    package var timeValue: timespec {
        Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))
    }

    /// Seconds since the epoch as a floating-point number.
    public var secondsSinceEpoch: Double { Double(seconds) + Double(nanoseconds) / 1e9 }

    /// This instant moved by `interval` seconds (negative moves back).
    public func adding(seconds interval: Double) -> Timestamp {
        let whole = interval.rounded(.down)
        var nanos = nanoseconds + Int64(((interval - whole) * 1e9).rounded())
        var secs = seconds &+ Int64(clamping: Int64(exactly: whole) ?? (whole < 0 ? Int64.min / 2 : Int64.max / 2))
        if nanos >= 1_000_000_000 {
            nanos -= 1_000_000_000
            secs &+= 1
        }
        return Timestamp(seconds: secs, nanoseconds: nanos)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.seconds != rhs.seconds ? lhs.seconds < rhs.seconds : lhs.nanoseconds < rhs.nanoseconds
    }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-11-21T17:28:00.123Z`.
    public var iso8601: String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let millis = Int32(nanoseconds / 1_000_000)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(millis, 3))Z"
    }
}

/// Monotonic time for durations and deadlines, unaffected by wall-clock changes.
public enum Monotonic {
    /// Milliseconds on CLOCK_MONOTONIC_COARSE: read from the vDSO without a system call, to a
    /// few milliseconds, for hot paths that only need that (inactivity timeouts).
    public static func coarseMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Sleeps the calling thread for `seconds`.
    public static func sleep(_ seconds: Double) {
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        nanosleep(&time, nil)
    }

    /// Seconds on the monotonic clock.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
