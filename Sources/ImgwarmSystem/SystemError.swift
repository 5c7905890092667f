#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: its `errno` value, which call failed and on what, with the C library's
/// message for people.
///
/// As swift-nio's `IOError` does, it names the call: "openat(x.tmp) failed: File exists". Two
/// errors are equal when their `errno` is: the call and the path are for people, not decisions.
///
/// The engine's run-level errors built on one (`CacheStoreError`, `DiskCacheError`,
/// `StoreFailure`, `ReportFile.OpenError`) keep it whole, so their messages name the call too
/// ("cannot use /c: mkdir(/c) failed: Permission denied"); a list's and a spool's read errors
/// keep only the `errno` so far. A cache file found changed since a clean's scan is not an
/// `errno` but `DiskCache.RemovalError.changedSinceScan`.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Int32
    /// The call that failed (`"openat"`, `"fstatat"`…); nil when not recorded.
    public var call: String?
    /// The path, or the name relative to an open folder, the call was given; nil when none.
    public var path: String?

    public init(code: Int32, call: String? = nil, path: String? = nil) {
        self.code = code
        self.call = call
        self.path = path
    }

    /// The `errno` of `call` on `path`, which just failed.
    static func last(_ call: String, _ path: String? = nil) -> SystemError {
        SystemError(code: errno, call: call, path: path)
    }

    /// `"openat(x.tmp) failed: File exists"`; only the message when the call is not recorded.
    public var description: String {
        guard let call else { return message }
        return "\(call)(\(path ?? "")) failed: \(message)"
    }

    /// `strerror(code)`: "No such file or directory".
    public var message: String { SystemError.message(code) }

    /// `strerror(code)`: "No such file or directory".
    public static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    public static func == (lhs: SystemError, rhs: SystemError) -> Bool { lhs.code == rhs.code }

    /// Nothing more can be written: the disk is full or the quota is spent.
    public var isDiskFull: Bool { code == ENOSPC || code == EDQUOT }
    /// The name does not exist.
    public var isNotFound: Bool { code == ENOENT }
    /// The name exists already.
    public var isAlreadyThere: Bool { code == EEXIST }
    /// The file system cannot do it (no O_TMPFILE, no birth times).
    public var isUnsupported: Bool { code == EOPNOTSUPP || code == EISDIR || code == EINVAL || code == ENOENT }
    /// Permission denied by the file's owner rules (EPERM).
    public var isNotPermitted: Bool { code == EPERM }
    /// The reader of a pipe went away (EPIPE).
    public var isBrokenPipe: Bool { code == EPIPE }
    /// A call a stop signal interrupted (`openExistingForWriting` waiting for a FIFO's reader).
    public var isInterrupted: Bool { code == EINTR }

    public static let notFound = SystemError(code: ENOENT)
    public static let isADirectory = SystemError(code: EISDIR)
    public static let timedOut = SystemError(code: ETIMEDOUT)
    public static let brokenPipe = SystemError(code: EPIPE)
    /// A FIFO opened for writing without waiting has no reader (`ENXIO`).
    public static let noReader = SystemError(code: ENXIO)
}
