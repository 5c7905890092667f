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
    /// The latest response's head (the final one's once the transfer ends): `ResponseHeaders`
    /// starts afresh at each status line, so a redirect's or a proxy's headers never reach the
    /// result.
    var headers = ResponseHeaders()
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
    /// Where a connection that agreed on HTTP/2 in its handshake is told, before any answer says
    /// so (`Downloader.multiplexingShown`); nil when nobody asks.
    var multiplexingNotices: MultiplexingNotices?
    /// Inactivity (`--timeout`): header bytes received, the byte count (body + headers) the
    /// progress callback saw last, and when it last changed (coarse monotonic milliseconds;
    /// negative until the request is sent).
    var headerBytes = 0
    var activitySeen: Int64 = 0
    var lastActivity: Int64 = -1
    /// Set when the progress callback ended the transfer for inactivity.
    var stalled = false

    init(
        easy: CurlEasy, entry: PendingEntry, configuration: FetchConfiguration, spillFolder: String, spillPrefix: String
    ) {
        self.easy = easy
        self.entry = entry
        self.configuration = configuration
        self.spillFolder = spillFolder
        self.spillPrefix = spillPrefix
        headers = Transfer.emptyHeaders(configuration)
    }

    /// A response head to fill: one that keeps every field when the run has a `RequestProfile`.
    static func emptyHeaders(_ configuration: FetchConfiguration) -> ResponseHeaders {
        var headers = ResponseHeaders()
        if configuration.profile != nil { headers.head = ResponseHead() }
        return headers
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
        headers = Transfer.emptyHeaders(configuration)
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
        // The first hop's connection is to the entry's own host (a redirect's may not be).
        if requestSentAt == 0, waitsForMultiplexing, let notices = multiplexingNotices {
            let host = HostSlots.key(of: entry)
            if !notices.knows(host) && easy.negotiatedHTTP2 { notices.heard(host) }
        }
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
        if headers.conflictingLength != nil { return false }
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

    /// Takes one response header line from libcurl.
    func header(_ line: UnsafeRawBufferPointer) {
        headerBytes &+= line.count
        headers.take(line)
        // The head's end, while the connection is alive: a kept head records the TLS session.
        if headers.head != nil && line.count <= 2 && headers.head?.tls == nil, let names = easy.tlsNames {
            headers.head?.tls = TLSSession(
                cipherSuite: names.cipherSuite, version: names.version, peerCertificates: easy.peerCertificates)
        }
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
