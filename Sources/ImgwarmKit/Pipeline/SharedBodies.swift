import ImgwarmSystem

/// The bodies this run downloaded, kept for the other formats of a run that fills several
/// (`--cache-format a,b`): each URL is requested once, and the formats stored after the one that
/// fetched it store the same bytes and response from here (`CopiedBody.shared`, read by
/// `LocalBodies`, through `KeptBodyReading`). The bodies go to one unlinked scratch file (as a HAR's recorded bodies do:
/// `HARBodies`), decoded when they came gzip-encoded (only OkHttp's profile keeps them so), so
/// memory holds their places and heads, never a body. They were validated once, when downloaded:
/// what validation found is kept with them, and a later format stores them without validating
/// them again. Validation workers add, the download loop reads: a mutex guards the table.
public final class SharedBodies: KeptBodyReading, @unchecked Sendable {
    /// One kept response.
    struct Kept {
        var offset: Int64
        var length: Int64
        /// The response's head as the format that fetched it kept it, describing the stored
        /// (decoded) bytes: `Content-Encoding` dropped and `Content-Length` made their length
        /// when the body was decoded.
        var headers: ResponseHeaders
        /// The format that fetched it (`CacheFormat.name`).
        var format: String
        /// Where formats stored these very bytes (not encoded), by format, in the order stored.
        var stored: [(format: String, path: String)] = []
        /// What validation found of them.
        var image: ValidatedImage
    }

    private let file: FileDescriptor
    private let guardian = Condition()
    private var end: Int64 = 0
    private var kept: [Kept] = []
    private var byURL: [String: Int] = [:]

    /// Keeps the bodies in an unlinked scratch file of `folder` (the run's spool folder).
    public init(folder: String) throws(SystemError) {
        file = try FileDescriptor.scratchFile(in: folder)
    }

    deinit { file.close() }

    /// Keeps the validated body `bytes` of `url`, downloaded for `format` with `headers`
    /// (`decoded`: the bytes are the gzip body's decoding, not what came off the network). A
    /// URL kept already keeps its first body. A scratch file that cannot be written keeps
    /// nothing: the other formats then request the URL themselves.
    func keep(
        _ bytes: UnsafeRawBufferPointer, url: String, headers: ResponseHeaders, decoded: Bool, format: String,
        image: ValidatedImage
    ) {
        var headers = headers
        if decoded, var head = headers.head {
            head.fields = head.fields.filter {
                let name = $0.prefix { $0 != ":" }.lowercased()
                return name != "content-encoding" && name != "content-length"
            }
            head.fields.append("Content-Length: \(bytes.count)")
            headers.head = head
        }
        guardian.lock()
        defer { guardian.unlock() }
        guard byURL[url] == nil else { return }
        do {
            try file.writeAll(bytes, at: end)
        } catch {
            return
        }
        byURL[url] = kept.count
        kept.append(Kept(offset: end, length: Int64(bytes.count), headers: headers, format: format, image: image))
        end += Int64(bytes.count)
    }

    /// Notes that `format` stored `url`'s kept bytes, unchanged, at `path`.
    func noteStored(_ url: String, format: String, at path: String) {
        guardian.lock()
        defer { guardian.unlock() }
        if let index = byURL[url] { kept[index].stored.append((format, path)) }
    }

    /// The place of `url`'s kept body, with the format that fetched it, whether its whole head
    /// was kept (what a format that stores the response whole, OkHttp's, needs) and where formats
    /// stored the same bytes; nil when this run kept none.
    public func find(_ url: String) -> (
        index: Int, format: String, wholeHead: Bool, stored: [(format: String, path: String)]
    )? {
        guardian.lock()
        defer { guardian.unlock() }
        guard let index = byURL[url] else { return nil }
        return (index, kept[index].format, kept[index].headers.head != nil, kept[index].stored)
    }

    /// What validation found of kept body `index`.
    func image(_ index: Int) -> ValidatedImage? {
        guardian.lock()
        defer { guardian.unlock() }
        return index >= 0 && index < kept.count ? kept[index].image : nil
    }

    /// The kept response `index`: its headers and length.
    public func response(_ index: Int) -> (headers: ResponseHeaders, length: Int64)? {
        guardian.lock()
        defer { guardian.unlock() }
        guard index >= 0 && index < kept.count else { return nil }
        return (kept[index].headers, kept[index].length)
    }

    /// Up to `count` bytes of kept body `index` from `position` (empty at its end).
    public func read(_ index: Int, at position: Int64, count: Int) throws(SystemError) -> [UInt8] {
        guardian.lock()
        let body = index >= 0 && index < kept.count ? kept[index] : nil
        guardian.unlock()
        guard let body, position < body.length else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(min(Int64(count), body.length - position)))
        var done = 0
        while done < bytes.count {
            let read = try file.read(into: &bytes, from: done, at: body.offset + position + Int64(done))
            if read == 0 { break }
            done += read
        }
        return Array(bytes[..<done])
    }
}
