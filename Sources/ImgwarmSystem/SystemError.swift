#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: its `errno` value, with the C library's message for people.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Int32

    public init(code: Int32) { self.code = code }

    /// The `errno` of the call that just failed.
    static var last: SystemError { SystemError(code: errno) }

    public var description: String { SystemError.message(code) }

    /// `strerror(code)`: "No such file or directory".
    public static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

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

    public static let notFound = SystemError(code: ENOENT)
    public static let stale = SystemError(code: ESTALE)
    public static let isADirectory = SystemError(code: EISDIR)
    public static let timedOut = SystemError(code: ETIMEDOUT)
}
