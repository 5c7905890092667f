import ImgwarmSystem

/// The bodies of entries that name their bytes (`BodySource`): a started entry completes at once,
/// with no request, as a transfer would (a body in memory, or in a temporary file of
/// `spillFolder` past `memoryLimit`), so the same validation and store follow. A file has status
/// 200 and no headers; a HAR's recorded body (`--offline`) its recorded status and response
/// headers, so an index keeps its validators and expiry as it would a download's; an entry with
/// nothing to store fails as `no-body`. The job reaches it through the same seam as the network
/// (`TransferRouter`).
final class LocalBodies {
    /// `--max-bytes`: a larger file is `too-large`, as a larger download is.
    let maxBytes: Int
    /// Bodies up to this size are read into memory; larger ones are copied to a temporary file.
    let memoryLimit: Int
    let spillFolder: String
    let spillPrefix: String
    /// `--offline`: the scratch file of the HAR captures' recorded bodies (`PrefetchIngest`
    /// keeps it open for the run).
    let recorded: HARBodies?
    /// Several formats in one run: the bodies this run downloaded for the other formats.
    let shared: (any KeptBodyReading)?
    private var finished: [Downloader.Finished] = []

    /// The largest local body held in memory (256 KiB); a larger one is copied to a temporary file.
    /// Local entries take no host slot and complete at once, so up to the validation queue's
    /// length (64) of them wait at a time: a body kept in memory up to the network's 4 MiB made an
    /// offline run of 80 bodies of 3 MB peak at 283 MB (`scripts/bench-har.sh`). The copy costs
    /// no more than the memory path, whose bytes are written to a temporary file too before the
    /// rename into the cache.
    static let memoryLimit = 256 << 10

    /// The most bodies read and not yet handed to validation: a list of local bodies or copies
    /// (`--from-cache`) is read as fast as it is validated, not all at once (100,000 copies held
    /// 1.5 GB before this bound: `scripts/bench.sh --conversion`). The validation queue's length.
    static let waitingLimit = 64

    init(
        maxBytes: Int, memoryLimit: Int, spillFolder: String, spillPrefix: String, recorded: HARBodies? = nil,
        shared: (any KeptBodyReading)? = nil
    ) {
        (self.maxBytes, self.memoryLimit) = (maxBytes, memoryLimit)
        (self.spillFolder, self.spillPrefix) = (spillFolder, spillPrefix)
        (self.recorded, self.shared) = (recorded, shared)
    }

    /// Entries read and not yet returned by `completions` or `abortAll`.
    var inFlight: Int { finished.count }

    /// Reads `entry`'s body now; `completions` returns it.
    func start(_ entry: PendingEntry) {
        let started = Monotonic.now()
        var done = Downloader.Finished(
            entry: entry, result: .failure(Failure(.transferFailed, "")), headers: ResponseHeaders(), httpStatus: nil,
            duration: 0, startedAt: started)
        if let copy = entry.copy {
            read(copy, entry: entry, into: &done)
            done.duration = Monotonic.now() - started
            finished.append(done)
            return
        }
        switch entry.body {
        case .file(let path):
            done.result = read(path, entry: entry)
        case .recorded(let recorded):
            done.result = read(
                HAREntry.Body(offset: recorded.offset, length: recorded.length), status: recorded.status, entry: entry)
            done.headers = ResponseHeaders(recorded: recorded.headers)
            if !recorded.statusLine.isEmpty {
                // The whole head, for a cache that keeps it (OkHttp's `<key>.0`).
                var head = ResponseHead(statusLine: recorded.statusLine, fields: recorded.fields)
                head.captured = CapturedExchange(
                    requestFields: recorded.requestFields, sentMillis: recorded.sentMillis,
                    receivedMillis: recorded.receivedMillis)
                done.headers.head = head
            }
            done.httpStatus = recorded.status
        case .missing, nil:
            // `.missing`: the `no-body` the dry run gives it too (`EntrySource.failureBeforeReading`).
            done.result = .failure(
                entry.source.failureBeforeReading ?? Failure(.transferFailed, "the entry has no local body"))
        }
        done.duration = Monotonic.now() - started
        finished.append(done)
    }

    /// Every entry read since the last call.
    func completions() -> [Downloader.Finished] {
        defer { finished.removeAll() }
        return finished
    }

    /// Forgets the entries read and not yet returned (an interruption); returns them.
    func abortAll() -> [PendingEntry] {
        for done in finished {
            if case .success(let body) = done.result, let name = body.spillName {
                try? FileSystem.removeFile(spillFolder + "/" + name)
            }
        }
        defer { finished.removeAll() }
        return finished.map(\.entry)
    }

    /// Another format's bytes (`CopiedBody`): this run's download with its response, or a hit's
    /// file of another format's folder with none (the status a file has).
    private func read(_ copy: CopiedBody, entry: PendingEntry, into done: inout Downloader.Finished) {
        if let folder = copy.folder, let name = copy.name {
            done.result = read(name, in: folder, entry: entry)
            return
        }
        guard let shared, let index = copy.shared, let (headers, length) = shared.response(index) else {
            done.result = .failure(Failure(.transferFailed, "this run's body for \(copy.format) is gone"))
            return
        }
        guard length <= Int64(maxBytes) else {
            done.result = .failure(
                Failure(.tooLarge, "the body is larger than \(Setting.maxBytes) (\(maxBytes) bytes)"))
            return
        }
        var position: Int64 = 0
        done.headers = headers
        done.httpStatus = 200
        done.result = collect(entry: entry, what: "the body kept for \(copy.format)", noun: "the body", status: 200) {
            () throws(SystemError) in
            let bytes = try shared.read(index, at: position, count: 1 << 20)
            position += Int64(bytes.count)
            return bytes[...]
        }
    }

    /// A HAR's recorded body as a body: at most `maxBytes`, not empty (ingest made sure).
    func read(_ body: HAREntry.Body, status: Int, entry: PendingEntry) -> Result<Downloader.Body, Failure> {
        guard let recorded else { return .failure(Failure(.noBody, "the recorded bodies are not open")) }
        if body.length > Int64(maxBytes) {
            return .failure(
                Failure(.tooLarge, "the recorded body is larger than \(Setting.maxBytes) (\(maxBytes) bytes)"))
        }
        var position: Int64 = 0
        return collect(entry: entry, what: "the recorded body", noun: "the recorded body", status: status) {
            () throws(SystemError) in
            let bytes: [UInt8]
            do throws(HARBodies.ScratchError) {
                bytes = try recorded.read(body, at: position, count: 1 << 20)
            } catch {
                throw SystemError(code: error.code)
            }
            position += Int64(bytes.count)
            return bytes[...]
        }
    }

    /// The file `name` of another cache's `folder` as a body, read as an untrusted folder's file
    /// is (docs/hardening.md): no link followed, only a regular file, its access time left as it
    /// was (a source is only read); at most `maxBytes`, not empty.
    func read(_ name: String, in folderPath: String, entry: PendingEntry) -> Result<Downloader.Body, Failure> {
        let what = folderPath + "/" + name
        let file: FileDescriptor
        let restore: Timestamp?
        let size: UInt64
        do {
            let folder = try FileDescriptor.openFolder(folderPath)
            defer { folder.close() }
            let (opening, restoreAccessTime) = try folder.openUntrustedFile(name)
            switch opening {
            case .opened(let opened, let status):
                guard status.size <= UInt64(maxBytes) else {
                    opened.close()
                    return .failure(
                        Failure(.tooLarge, "the file is larger than \(Setting.maxBytes) (\(maxBytes) bytes)"))
                }
                (file, restore, size) = (opened, restoreAccessTime, status.size)
            case .absent: return .failure(Failure(.transferFailed, "\(what) is gone"))
            case .other(let why): return .failure(Failure(.transferFailed, "\(what): \(why)"))
            }
        } catch {
            return .failure(Failure(.transferFailed, "cannot read \(what): \(SystemError.message(error.code))"))
        }
        defer {
            if let restore { try? file.setAccessTime(restore) }
            file.close()
        }
        // A piece of at most 1 MiB, and not more than the file and its end's check need.
        var chunk = [UInt8](repeating: 0, count: Int(min(size + 1, 1 << 20)))
        return collect(entry: entry, what: what, noun: "the file", status: 200) { () throws(SystemError) in
            let read = try file.read(into: &chunk)
            return chunk[..<read]
        }
    }

    /// The file at `path` as a body: only a regular file, at most `maxBytes`, not empty.
    func read(_ path: String, entry: PendingEntry) -> Result<Downloader.Body, Failure> {
        // Checked again as it is read (ingest checked it): opening a FIFO would wait for a writer.
        let file: FileDescriptor
        do {
            guard try FileSystem.status(ofPath: path).kind == .file else {
                return .failure(Failure(.transferFailed, "\(path) is no longer a regular file"))
            }
            file = try FileDescriptor.openForReading(path)
        } catch {
            return .failure(Failure(.transferFailed, "cannot read \(path): \(SystemError.message(error.code))"))
        }
        defer { file.close() }
        guard let status = try? file.status(), status.kind == .file else {
            return .failure(Failure(.transferFailed, "\(path) is not a regular file"))
        }
        if status.size > UInt64(maxBytes) {
            return .failure(
                Failure(.tooLarge, "the file is larger than \(Setting.maxBytes) (\(maxBytes) bytes)"))
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        return collect(entry: entry, what: path, noun: "the file", status: 200) { () throws(SystemError) in
            let read = try file.read(into: &chunk)
            return chunk[..<read]
        }
    }

    /// The body `next` hands in pieces (an empty one at its end), in memory or spilled past
    /// `memoryLimit`; `what` names its source in messages, `noun` in the size's.
    private func collect(
        entry: PendingEntry, what: String, noun: String, status: Int,
        next: () throws(SystemError) -> ArraySlice<UInt8>
    ) -> Result<Downloader.Body, Failure> {
        var bytes: [UInt8] = []
        var spill: (name: String, file: FileDescriptor)?
        var count = 0
        var failure: Failure?
        while failure == nil {
            let piece: ArraySlice<UInt8>
            do {
                piece = try next()
            } catch {
                failure = Failure(.transferFailed, "cannot read \(what): \(error.message)")
                break
            }
            if piece.isEmpty { break }
            count += piece.count
            if count > maxBytes {  // it grew while read
                failure = Failure(.tooLarge, "\(noun) is larger than \(Setting.maxBytes) (\(maxBytes) bytes)")
                break
            }
            do throws(SystemError) {
                if spill == nil && count > memoryLimit {
                    let name = "\(spillPrefix)\(FileSystem.processID)-\(entry.input)-\(entry.line)-local.part"
                    spill = (name, try FileDescriptor.createFile(spillFolder + "/" + name))
                    try spill?.file.writeAll(bytes)
                    bytes = []
                }
                if let spill {
                    var error: SystemError?
                    piece.withUnsafeBytes { raw in
                        do throws(SystemError) {
                            try spill.file.writeAll(raw)
                        } catch let failed { error = failed }
                    }
                    if let error { throw error }
                } else {
                    bytes.append(contentsOf: piece)
                }
            } catch {
                failure = Failure(.writeFailed, "cannot copy \(what) to a temporary file: \(error)")
            }
        }
        if let spill {
            do throws(SystemError) {
                try spill.file.closeAfterWriting()
            } catch {
                failure = failure ?? Failure(.writeFailed, "cannot copy \(what) to a temporary file: \(error)")
            }
            if failure != nil { try? FileSystem.removeFile(spillFolder + "/" + spill.name) }
        }
        if let failure { return .failure(failure) }
        if count == 0 {
            return .failure(Failure(.emptyBody, noun == "the file" ? "the file \(what) is empty" : "\(noun) is empty"))
        }
        return .success(Downloader.Body(bytes: bytes, spillName: spill?.name, count: count, status: status))
    }
}

/// The bodies a run kept for its other formats (several formats in one run: `SharedBodies`), as
/// `LocalBodies` reads them: a kept response's head and length, and its bytes in pieces.
protocol KeptBodyReading: AnyObject, Sendable {
    func response(_ index: Int) -> (headers: ResponseHeaders, length: Int64)?
    func read(_ index: Int, at position: Int64, count: Int) throws(SystemError) -> [UInt8]
}
