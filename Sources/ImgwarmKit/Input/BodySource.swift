import ImgwarmSystem

/// Where an entry's body comes from when it is not requested: a list line that names its bytes
/// (a JSON Lines `"file"`), or, under `--offline`, the body a HAR capture recorded. An entry
/// without one is fetched from its URL.
public enum BodySource: Sendable, Equatable {
    /// A regular file, by its resolved path (every symbolic link followed, `LocalFileRules`).
    case file(String)
    /// `--offline`: a HAR entry's recorded body and response (`RecordedResponse`).
    case recorded(RecordedResponse)
    /// `--offline`: an entry with nothing to store (a 304 or another status without an image,
    /// a body not saved, a `content.size` that differs from it, bad base64, a plain URL line):
    /// its `no-body` outcome, with why.
    case missing(String)

    /// A local file: it had no response (no status, no headers).
    public var isFile: Bool {
        if case .file = self { return true }
        return false
    }

    /// The kind byte and the fields of the spool's record (`EntrySpool`).
    var spoolFields: (kind: UInt8, fields: [String]) {
        switch self {
        case .file(let path): return (0, [path])
        case .recorded(let recorded): return (1, recorded.spoolFields)
        case .missing(let reason): return (2, [reason])
        }
    }

    /// The source a spool record holds (`spoolFields`).
    init(spoolKind kind: UInt8, fields: [String]) {
        switch kind {
        case 1 where fields.count >= 3: self = .recorded(RecordedResponse(spoolFields: fields))
        case 2: self = .missing(fields.first ?? "")
        default: self = .file(fields.first ?? "")
        }
    }
}

/// `--offline`: what a HAR entry recorded of one response, as a seed stores it: the body's place
/// (`length` bytes at `offset` in the run's scratch file of bodies, `HARBodies`, kept open by the
/// ingest for the whole run), the recorded status, the response headers an index keeps, and the
/// whole exchange for a cache that keeps responses whole (OkHttp's `<key>.0`: `HAREntry+Response`).
public struct RecordedResponse: Sendable, Equatable {
    public var offset: Int64
    public var length: Int64
    public var status: Int
    /// The headers an index keeps (`ETag`, `Last-Modified`, `Cache-Control`, `Content-Type`), as
    /// `Name: value` lines.
    public var headers: [String]
    /// The status line as a cache that keeps it writes it (`HTTP/1.1 200 OK`); empty when not made.
    public var statusLine = ""
    /// Every response header that describes the stored body (`Name: value`): hop-by-hop
    /// headers, HTTP/2 pseudo-headers and `Set-Cookie` left out, `Content-Encoding` dropped and
    /// `Content-Length` made the stored length (the recorded body is the decoded one).
    public var fields: [String] = []
    /// The recorded request headers the response's `Vary` names (`Name: value`), never a
    /// credential.
    public var requestFields: [String] = []
    /// When the capture sent the request and received the response (milliseconds since the
    /// epoch, from `startedDateTime` and `time`); nil when the capture does not say.
    public var sentMillis: Int64?
    public var receivedMillis: Int64?

    public init(offset: Int64, length: Int64, status: Int, headers: [String]) {
        (self.offset, self.length, self.status, self.headers) = (offset, length, status, headers)
    }

    /// The spool record's fields: the numbers, then each list with its count before it.
    var spoolFields: [String] {
        var fields = [String(offset), String(length), String(status), statusLine]
        fields += [sentMillis.map(String.init) ?? "", receivedMillis.map(String.init) ?? ""]
        for list in [headers, self.fields, requestFields] { fields += [String(list.count)] + list }
        return fields
    }

    /// The response a spool record holds (`spoolFields`).
    init(spoolFields fields: [String]) {
        self.init(
            offset: Int64(fields[0]) ?? 0, length: Int64(fields[1]) ?? 0, status: Int(fields[2]) ?? 0, headers: [])
        guard fields.count >= 6 else { return }
        statusLine = fields[3]
        sentMillis = Int64(fields[4])
        receivedMillis = Int64(fields[5])
        var position = 6
        func list() -> [String] {
            guard position < fields.count, let count = Int(fields[position]), count >= 0,
                position + 1 + count <= fields.count
            else { return [] }
            defer { position += 1 + count }
            return Array(fields[(position + 1)..<(position + 1 + count)])
        }
        headers = list()
        self.fields = list()
        requestFields = list()
    }
}

/// The rules of a JSON Lines `"file"` path: a relative path resolves against the list's folder
/// (standard input: the current folder), or against `--files-root` when it is given; a path
/// that leaves that folder (`..`, an absolute path, a symbolic link pointing out) is refused
/// unless `--files-root` holds it; only regular files are read (not FIFOs, devices, folders).
public struct LocalFileRules: Sendable, Equatable {
    /// `--files-root`: the folder every file must be in, and relative paths resolve against.
    public var root: String?

    public init(root: String? = nil) { self.root = root }

    /// Why a path is refused, in words for the report (the line's `errorMessage`).
    public struct Refusal: Error, Equatable, Sendable {
        public var message: String
    }

    /// `path` from the root folder: itself when absolute, else under the current folder
    /// (`./` and `//` left out).
    public static func fullPath(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : (FileSystem.currentFolder ?? ".") + "/" + path
        let parts = full.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }

    /// The resolved path of `path`, named on a line of the list at `listPath` (`-`: standard input).
    public func resolve(_ path: String, listPath: String) -> Result<String, Refusal> {
        let base = root ?? LocalFileRules.folder(of: listPath)
        let absolute = path.hasPrefix("/")
        if root == nil {
            if absolute {
                return .failure(
                    Refusal(
                        message:
                            "\"file\" \(path) is an absolute path; name a folder holding it with \(Setting.filesRoot)")
                )
            }
            if path.split(separator: "/", omittingEmptySubsequences: false).contains("..") {
                return .failure(
                    Refusal(
                        message: "\"file\" \(path) leaves the list's folder (..); use \(Setting.filesRoot) to allow it")
                )
            }
        }
        let joined = absolute ? path : base + "/" + path
        // A relative path is named with where it was looked for (the list's folder, the root).
        let named = absolute ? path : "\(path) (looked for at \(LocalFileRules.fullPath(joined)))"
        let status: FileStatus
        do {
            status = try FileSystem.status(ofPath: joined)
        } catch {
            return .failure(Refusal(message: "cannot read \"file\" \(named): \(SystemError.message(error.code))"))
        }
        guard status.kind == .file else {
            let what = status.kind == .directory ? "a folder" : "a FIFO, socket or device"
            return .failure(Refusal(message: "\"file\" \(named) is \(what), not a regular file"))
        }
        guard let real = FileSystem.resolvedPath(joined), let realBase = FileSystem.resolvedPath(base) else {
            return .failure(Refusal(message: "cannot read \"file\" \(path): its path cannot be resolved"))
        }
        guard LocalFileRules.isInside(real, folder: realBase) else {
            let within = root.map { "\(Setting.filesRoot) \($0)" } ?? "the list's folder"
            return .failure(Refusal(message: "\"file\" \(path) resolves to \(real), outside \(within)"))
        }
        return .success(real)
    }

    /// The folder of the list at `listPath`: standard input's is the current folder.
    static func folder(of listPath: String) -> String {
        guard listPath != "-", let slash = listPath.lastIndex(of: "/") else { return "." }
        let folder = String(listPath[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// True when resolved path `path` is in resolved folder `folder` (or its subfolders).
    static func isInside(_ path: String, folder: String) -> Bool {
        if folder == "/" { return path.hasPrefix("/") }
        return path.hasPrefix(folder + "/")
    }
}
