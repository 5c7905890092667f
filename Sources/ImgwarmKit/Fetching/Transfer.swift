import Curl
import ImgwarmSystem

/// One URL being downloaded: its easy handle, the body received so far and the response facts
/// the pipeline needs. Lives on the downloader thread only.
final class Transfer {
    let easy: CurlEasy
    var entry: PendingEntry
    let configuration: FetchConfiguration
    let spillFolder: String
    let spillPrefix: String

    /// The body, while it is small enough to keep in memory.
    var body: [UInt8] = []
    /// The temporary file (a name in `spillFolder`) the body went to once it outgrew
    /// `memoryBodyLimit`.
    var spillName: String?
    var spillFile: FileDescriptor?
    /// Decoded bytes received for the final response.
    var received = 0
    /// The HTTP status when the body started.
    var statusOfBody = 0
    var tooLarge = false
    var writeError: SystemError?
    /// The final response is not 2xx: its body is read (so the connection can be reused) and dropped.
    var discarding = false
    var discarded = 0
    var etag: String?
    var lastModified: String?
    /// `Cache-Control` (several joined with `, `) and `Content-Type`, for a format whose index keeps them (flutter).
    var cacheControl: String?
    var contentType: String?
    var retryAfter: String?
    /// The scheme of the latest response's `Location` (lower-case; nil when it had none or a
    /// relative one): tells a refused redirect from an answer libcurl could not parse.
    var locationScheme: String?
    var startedAt = 0.0
    /// When the latest request went out (monotonic seconds; 0 before): a response's latency is
    /// counted from here, without the connection's set-up or a wait for a connection.
    var requestSentAt = 0.0
    /// `--limit-rate`'s bucket, shared by every transfer of the run; nil without a limit.
    var rateLimit: ByteRateLimit?
    /// Paused by `rateLimit` until the downloader resumes it.
    var paused = false
    /// The handle carries conditional headers of its own rather than the shared list.
    var hasOwnHeaders = false
    /// The handle's `CURLOPT_PIPEWAIT`, as last set.
    var waitsForMultiplexing = true
    /// The latest response came over HTTP/2 or later (its status line says `HTTP/2`).
    var multiplexed = false
    /// Inactivity (`--timeout`): header bytes received, the byte count (body + headers) the
    /// progress callback saw last, and when it last changed (coarse monotonic milliseconds;
    /// negative until the request is sent).
    var headerBytes = 0
    var activitySeen: Int64 = 0
    var lastActivity: Int64 = -1
    /// Set when the progress callback ended the transfer for inactivity.
    var stalled = false
    /// The latest response's first `Content-Length`, and another value it also gave (a second
    /// header or a list): RFC 9112 §6.3 makes differing lengths an unrecoverable error, while
    /// libcurl 7.88 silently takes the last one (a cut body, then, that looks like `truncated`).
    var contentLength: Int64?
    var conflictingLength: Int64?

    init(
        easy: CurlEasy, entry: PendingEntry, configuration: FetchConfiguration, spillFolder: String, spillPrefix: String
    ) {
        self.easy = easy
        self.entry = entry
        self.configuration = configuration
        self.spillFolder = spillFolder
        self.spillPrefix = spillPrefix
    }

    /// Clears what a previous use left, for reuse with a new entry.
    func prepare(for entry: PendingEntry) {
        self.entry = entry
        body = []
        spillName = nil
        spillFile = nil
        received = 0
        statusOfBody = 0
        tooLarge = false
        writeError = nil
        discarding = false
        discarded = 0
        etag = nil
        lastModified = nil
        cacheControl = nil
        contentType = nil
        retryAfter = nil
        locationScheme = nil
        multiplexed = false
        contentLength = nil
        conflictingLength = nil
        requestSentAt = 0
        paused = false
    }

    /// Clears the inactivity state of a previous use; the clock stays stopped until the request
    /// goes out.
    func resetActivityClock() {
        headerBytes = 0
        activitySeen = 0
        lastActivity = -1
        stalled = false
    }

    /// Starts (or restarts) the inactivity clock: a connection is ready and the request is about
    /// to be sent. Before that, connecting is bounded by CURLOPT_CONNECTTIMEOUT (also
    /// `--timeout`), and a transfer waiting for another's connection to the same host (libcurl's
    /// PIPEWAIT) is not inactive: it has not started.
    func requestWillBeSent() {
        requestSentAt = Monotonic.now()
        activitySeen = Int64.min
        lastActivity = Monotonic.coarseMilliseconds()
    }

    /// Called by libcurl's progress callback with the body bytes received so far: false ends the
    /// transfer when no byte (body or header) arrived for `--timeout` seconds since the request
    /// went out or since the last byte. This runs on every pass of the event loop for every
    /// transfer: an addition, a coarse clock read, two compares.
    func progress(downloaded: Int64) -> Bool {
        guard lastActivity >= 0 else { return true }
        if paused {
            // Waiting for `--limit-rate`'s balance is not inactivity.
            lastActivity = Monotonic.coarseMilliseconds()
            return true
        }
        let seen = downloaded &+ Int64(headerBytes)
        let now = Monotonic.coarseMilliseconds()
        if seen != activitySeen {
            activitySeen = seen
            lastActivity = now
            return true
        }
        if now - lastActivity >= configuration.timeoutMilliseconds {
            stalled = true
            return false
        }
        return true
    }

    /// Largest error-page body read before the transfer is abandoned.
    static let discardLimit = 1 << 20

    /// Takes `count` body bytes from libcurl; false aborts the transfer.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if conflictingLength != nil { return false }
        rateLimit?.took(bytes.count)
        if received == 0 && discarded == 0 {
            statusOfBody = easy.responseCode
            discarding = !(200...299).contains(statusOfBody)
        }
        if discarding {
            discarded += bytes.count
            return discarded <= Transfer.discardLimit
        }
        received += bytes.count
        if received > configuration.maxBytes {
            tooLarge = true
            return false
        }
        if spillFile == nil && received <= configuration.memoryBodyLimit {
            if body.isEmpty, let announced = easy.contentLength, announced > 0 {
                body.reserveCapacity(min(Int(announced), configuration.memoryBodyLimit))
            }
            body.append(contentsOf: bytes)
            return true
        }
        if spillFile == nil && !startSpill() { return false }
        return writeSpill(bytes)
    }

    /// Moves the in-memory body to a temporary file, which receives the rest.
    private func startSpill() -> Bool {
        let name = "\(spillPrefix)\(FileSystem.processID)-\(entry.input)-\(entry.line)-\(entry.attempts).part"
        do throws(SystemError) {
            spillFile = try FileDescriptor.createFile(spillFolder + "/" + name)
        } catch {
            writeError = error
            return false
        }
        spillName = name
        let pending = body
        body = []
        return pending.withUnsafeBytes { writeSpill($0) }
    }

    private func writeSpill(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let file = spillFile else { return false }
        do throws(SystemError) {
            try file.writeAll(bytes)
            return true
        } catch {
            writeError = error
            return false
        }
    }

    /// Closes the spill file, if any; keeps it on disk for the validator. Returns the error of a
    /// late write (the close is where NFS and quotas report one).
    func finishSpill() -> SystemError? {
        guard let file = spillFile else { return nil }
        spillFile = nil
        do throws(SystemError) {
            try file.closeAfterWriting()
            return nil
        } catch {
            return error
        }
    }

    /// Removes the spill file (the transfer failed).
    func discardSpill() {
        _ = finishSpill()
        if let spillName { try? FileSystem.removeFile(spillFolder + "/" + spillName) }
        spillName = nil
    }

    /// Takes one response header line from libcurl. Only a few headers matter, so the line is
    /// matched as bytes and a String is made only for their values (this runs ~10 times per URL).
    func header(_ line: UnsafeRawBufferPointer) {
        headerBytes &+= line.count
        guard let first = line.first else { return }
        if first == UInt8(ascii: "H") && line.starts(with: "HTTP/".utf8) {
            // A new response (after a redirect or a 100 Continue): forget the previous one's.
            multiplexed = line.count > 5 && line[5] >= UInt8(ascii: "2") && line[5] <= UInt8(ascii: "9")
            etag = nil
            lastModified = nil
            cacheControl = nil
            contentType = nil
            retryAfter = nil
            locationScheme = nil
            contentLength = nil
            conflictingLength = nil
            return
        }
        switch first | 0x20 {
        case UInt8(ascii: "c"):
            if let value = Transfer.value(of: "content-length", in: line) {
                noteContentLength(value)
            } else if let value = Transfer.value(of: "cache-control", in: line) {
                cacheControl = cacheControl.map { $0 + ", " + value } ?? value
            } else if let value = Transfer.value(of: "content-type", in: line) {
                contentType = value
            }
        case UInt8(ascii: "e"):
            if let value = Transfer.value(of: "etag", in: line) { etag = Transfer.isSafeValidator(value) ? value : nil }
        case UInt8(ascii: "l"):
            if let value = Transfer.value(of: "last-modified", in: line) {
                lastModified = Transfer.isSafeValidator(value) ? value : nil
            } else if let value = Transfer.value(of: "location", in: line) {
                locationScheme = Transfer.scheme(of: value)
            }
        case UInt8(ascii: "r"): if let value = Transfer.value(of: "retry-after", in: line) { retryAfter = value }
        default: break
        }
    }

    /// Remembers a `Content-Length` value (`15082`, or a list `15082, 15082`), and the first
    /// number that differs from the response's first. Values that are not numbers are libcurl's
    /// to judge.
    private func noteContentLength(_ value: String) {
        for item in value.split(separator: ",") {
            guard let length = Int64(item.trimmingCharacters(in: " \t")) else { continue }
            if let contentLength {
                if length != contentLength && conflictingLength == nil { conflictingLength = length }
            } else {
                contentLength = length
            }
        }
    }

    /// The longest `ETag` or `Last-Modified` value kept, in bytes.
    static let validatorLimit = 1024

    /// Whether an `ETag` or `Last-Modified` value may be stored and echoed back in
    /// `If-None-Match` / `If-Modified-Since`: 1 to `validatorLimit` bytes, each visible ASCII or
    /// a space. Anything else (control characters, bytes over 0x7E, a kilobyte of padding) is
    /// dropped, as if the server had sent no validator.
    static func isSafeValidator(_ value: String) -> Bool {
        let bytes = value.utf8
        return !bytes.isEmpty && bytes.count <= validatorLimit && bytes.allSatisfy { $0 >= 0x20 && $0 <= 0x7E }
    }

    /// The scheme of an absolute URL reference (`ftp` of `FTP://x/y`), lower-cased; nil for a
    /// relative reference.
    static func scheme(of reference: String) -> String? {
        var scheme = ""
        for byte in reference.utf8 {
            switch byte {
            case UInt8(ascii: ":"):
                return scheme.isEmpty ? nil : scheme
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                scheme.append(Character(Unicode.Scalar(byte | 0x20)))
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                guard !scheme.isEmpty else { return nil }
                scheme.append(Character(Unicode.Scalar(byte)))
            default:
                return nil
            }
            if scheme.utf8.count > 32 { return nil }
        }
        return nil
    }

    /// The value of header `name` (lower-case) when `line` is that header, trimmed.
    static func value(of name: StaticString, in line: UnsafeRawBufferPointer) -> String? {
        let count = name.utf8CodeUnitCount
        guard line.count > count, line[count] == UInt8(ascii: ":") else { return nil }
        let matches = name.withUTF8Buffer { expected in
            (0..<count).allSatisfy { line[$0] | 0x20 == expected[$0] || line[$0] == expected[$0] }
        }
        guard matches else { return nil }
        var start = count + 1
        var end = line.count
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A }
        while start < end && isSpace(line[start]) { start += 1 }
        while end > start && isSpace(line[end - 1]) { end -= 1 }
        return String(validating: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }
}

extension Transfer: CurlTransferDelegate {
    func curlReceive(body bytes: UnsafeRawBufferPointer) -> Bool { receive(bytes) }
    func curlReceive(headerLine line: UnsafeRawBufferPointer) { header(line) }
    func curlProgress(downloaded: Int64) -> Bool { progress(downloaded: downloaded) }
    func curlRequestWillBeSent() { requestWillBeSent() }

    func curlMayReceive() -> Bool {
        guard let rateLimit, !rateLimit.mayReceive(now: Monotonic.now()) else { return true }
        if !paused {
            paused = true
            rateLimit.pause(self)
        }
        return false
    }
}
