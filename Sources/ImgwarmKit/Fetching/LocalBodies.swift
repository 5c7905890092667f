import ImgwarmSystem

/// The bodies of entries that name their bytes (`BodySource`): a started entry completes at once,
/// with no request, as a transfer would (a body in memory, or in a temporary file of
/// `spillFolder` past `memoryLimit`; status 200, no headers), so the same validation and store
/// follow. The job reaches it through the same seam as the network (`TransferRouter`).
final class LocalBodies {
    /// `--max-bytes`: a larger file is `too-large`, as a larger download is.
    let maxBytes: Int
    /// Bodies up to this size are read into memory; larger ones are copied to a temporary file.
    let memoryLimit: Int
    let spillFolder: String
    let spillPrefix: String
    private var finished: [Downloader.Finished] = []

    init(maxBytes: Int, memoryLimit: Int, spillFolder: String, spillPrefix: String) {
        (self.maxBytes, self.memoryLimit) = (maxBytes, memoryLimit)
        (self.spillFolder, self.spillPrefix) = (spillFolder, spillPrefix)
    }

    /// Entries read and not yet returned by `completions` or `abortAll`.
    var inFlight: Int { finished.count }

    /// Reads `entry`'s body now; `completions` returns it.
    func start(_ entry: PendingEntry) {
        let started = Monotonic.now()
        var done = Downloader.Finished(
            entry: entry, result: .failure(Failure(.transferFailed, "")), headers: ResponseHeaders(), httpStatus: nil,
            duration: 0, startedAt: started)
        switch entry.body {
        case .file(let path):
            done.result = read(path, entry: entry)
        case nil:
            done.result = .failure(Failure(.transferFailed, "the entry has no local body"))
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
        var bytes: [UInt8] = []
        var spill: (name: String, file: FileDescriptor)?
        var count = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var failure: Failure?
        while failure == nil {
            let read: Int
            do {
                read = try file.read(into: &chunk)
            } catch {
                failure = Failure(.transferFailed, "cannot read \(path): \(error.message)")
                break
            }
            if read == 0 { break }
            count += read
            if count > maxBytes {  // it grew while read
                failure = Failure(.tooLarge, "the file is larger than \(Setting.maxBytes) (\(maxBytes) bytes)")
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
                    chunk.withUnsafeBytes { raw in
                        do throws(SystemError) {
                            try spill.file.writeAll(UnsafeRawBufferPointer(rebasing: raw[..<read]))
                        } catch let failed { error = failed }
                    }
                    if let error { throw error }
                } else {
                    bytes.append(contentsOf: chunk[..<read])
                }
            } catch {
                failure = Failure(.writeFailed, "cannot copy \(path) to a temporary file: \(error)")
            }
        }
        if let spill {
            do throws(SystemError) {
                try spill.file.closeAfterWriting()
            } catch {
                failure = failure ?? Failure(.writeFailed, "cannot copy \(path) to a temporary file: \(error)")
            }
            if failure != nil { try? FileSystem.removeFile(spillFolder + "/" + spill.name) }
        }
        if let failure { return .failure(failure) }
        if count == 0 { return .failure(Failure(.emptyBody, "the file \(path) is empty")) }
        return .success(Downloader.Body(bytes: bytes, spillName: spill?.name, count: count, status: 200))
    }
}
