import CCurl
import Curl

#if canImport(Glibc)
import Glibc
#endif

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
    var spillDescriptor: Int32 = -1
    /// Decoded bytes received for the final response.
    var received = 0
    /// The HTTP status when the body started.
    var statusOfBody = 0
    var tooLarge = false
    var writeError: Int32 = 0
    /// The final response is not 2xx: its body is read (so the connection can be reused) and dropped.
    var discarding = false
    var discarded = 0
    var etag: String?
    var lastModified: String?
    var retryAfter: String?
    var startedAt = 0.0
    /// The handle carries conditional headers of its own rather than the shared list.
    var hasOwnHeaders = false

    init(easy: CurlEasy, entry: PendingEntry, configuration: FetchConfiguration, spillFolder: String, spillPrefix: String) {
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
        spillDescriptor = -1
        received = 0
        statusOfBody = 0
        tooLarge = false
        writeError = 0
        discarding = false
        discarded = 0
        etag = nil
        lastModified = nil
        retryAfter = nil
    }

    /// Largest error-page body read before the transfer is abandoned.
    static let discardLimit = 1 << 20

    /// Takes `count` body bytes from libcurl; false aborts the transfer.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
        if spillDescriptor < 0 && received <= configuration.memoryBodyLimit {
            if body.isEmpty {
                let announced = easy.info(offset: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
                if announced > 0 { body.reserveCapacity(min(Int(announced), configuration.memoryBodyLimit)) }
            }
            body.append(contentsOf: bytes)
            return true
        }
        if spillDescriptor < 0 && !startSpill() { return false }
        return writeAll(bytes)
    }

    /// Moves the in-memory body to a temporary file, which receives the rest.
    private func startSpill() -> Bool {
        let name = "\(spillPrefix)\(getpid())-\(entry.input)-\(entry.line)-\(entry.attempts).part"
        let descriptor = open(spillFolder + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            writeError = errno
            return false
        }
        spillDescriptor = descriptor
        spillName = name
        let ok = body.withUnsafeBytes { writeAll($0) }
        body = []
        return ok
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(spillDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                writeError = errno
                return false
            }
            offset += written
        }
        return true
    }

    /// Closes the spill file, if any; keeps it on disk for the validator.
    func finishSpill() -> Int32 {
        guard spillDescriptor >= 0 else { return 0 }
        let result = close(spillDescriptor) == 0 ? 0 : errno
        spillDescriptor = -1
        return result
    }

    /// Removes the spill file (the transfer failed).
    func discardSpill() {
        _ = finishSpill()
        if let spillName { unlink(spillFolder + "/" + spillName) }
        spillName = nil
    }

    /// Takes one response header line from libcurl. Only three headers matter, so the line is
    /// matched as bytes and a String is made only for their values (this runs ~10 times per URL).
    func header(_ line: UnsafeRawBufferPointer) {
        guard let first = line.first else { return }
        if first == UInt8(ascii: "H") && line.starts(with: "HTTP/".utf8) {
            // A new response (after a redirect or a 100 Continue): forget the previous one's.
            etag = nil
            lastModified = nil
            retryAfter = nil
            return
        }
        switch first | 0x20 {
        case UInt8(ascii: "e"): if let value = Transfer.value(of: "etag", in: line) { etag = value }
        case UInt8(ascii: "l"): if let value = Transfer.value(of: "last-modified", in: line) { lastModified = value }
        case UInt8(ascii: "r"): if let value = Transfer.value(of: "retry-after", in: line) { retryAfter = value }
        default: break
        }
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

/// libcurl's write callback: hands the bytes to the transfer in `userData`.
let transferWriteCallback: imgwarm_data_callback = { buffer, size, count, userData in
    guard let buffer, let userData else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
    let length = size * count
    return transfer.receive(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

/// libcurl's header callback: one header line at a time.
let transferHeaderCallback: imgwarm_data_callback = { buffer, size, count, userData in
    guard let buffer, let userData else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
    let length = size * count
    transfer.header(UnsafeRawBufferPointer(start: buffer, count: length))
    return length
}
