import ImgwarmSystem

/// Reading the journal as a stream, and writing to it by appending or by the library's rewrite
/// (docs/cache-formats-android.md, "Appending and compacting").
extension JournalIndex {
    /// The bytes read from the journal at once.
    static let chunkSize = 1 << 16

    /// Which file `journal` is (device, inode, size, modification time, not following a link).
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: UInt64
        var modified: Timestamp
        init(_ info: FileStatus) {
            device = info.device
            inode = info.inode
            size = info.size
            modified = info.modified
        }

        /// What stands at `journal` in `directory` now; nil when nothing does.
        static func of(_ directory: FileDescriptor) -> Identity? {
            (try? directory.status(of: JournalIndex.journalName)).map(Identity.init)
        }
    }

    /// The journal file a parsed journal came from.
    struct JournalFile: Equatable {
        /// `journal` as it was when read or last written; nil when the entries came from elsewhere
        /// (`journal.bkp`, no journal yet) or the file grew while it was read.
        var identity: Identity?
        /// Lines can be added at its end: it is `journal` and its last line ends with `\n`.
        var appendable: Bool

        static let none = JournalFile(identity: nil, appendable: false)
    }

    /// The journal as the library would read it now, `journal`, else `journal.bkp` (the library
    /// renames a lone backup into place), else an empty cache, and the file it came from.
    func currentJournal() throws(CacheIndexError) -> (journal: DiskLruJournal, file: JournalFile) {
        guard let directory = try openFolder() else { return (DiskLruJournal.empty(header: layout.header), .none) }
        defer { directory.close() }
        return try currentJournal(in: directory)
    }

    func currentJournal(in directory: FileDescriptor) throws(CacheIndexError) -> (
        journal: DiskLruJournal, file: JournalFile
    ) {
        for name in [JournalIndex.journalName, JournalIndex.backupName] {
            if let read = try readJournal(name, in: directory) { return read }
        }
        return (DiskLruJournal.empty(header: layout.header), .none)
    }

    /// Reads the regular file `name` of `directory` in chunks of `chunkSize`; nil when there is
    /// none. Anything but a regular file there (a FIFO, a device, a link) is never read. Reading
    /// does not move its access time (`O_NOATIME`, else the time is put back): `keys detect`,
    /// `verify` and `pack` only read, and leave every time as they found it.
    func readJournal(_ name: String, in directory: FileDescriptor) throws(CacheIndexError) -> (
        journal: DiskLruJournal, file: JournalFile
    )? {
        let opening: RegularFileOpening
        do { opening = try directory.openRegularFileUntouched(name).0 } catch {
            throw .system(path: path(name), error)
        }
        let file: FileDescriptor
        let accessed: Timestamp
        switch opening {
        case .absent: return nil
        case .other(let what): throw .notARegularFile(path: path(name), what: what)
        case .opened(let opened, let info): (file, accessed) = (opened, info.accessed)
        }
        defer {
            if let now = try? file.status(), now.accessed != accessed { try? file.setAccessTime(accessed) }
            file.close()
        }
        var reader = DiskLruJournal.Reader(header: layout.header, dialect: layout.dialect)
        var buffer = [UInt8](repeating: 0, count: JournalIndex.chunkSize)
        while true {
            let count: Int
            do { count = try file.read(into: &buffer) } catch { throw .system(path: path(name), error) }
            if count == 0 { break }
            do { try reader.feed(buffer[..<count]) } catch {
                noteBuffered(reader.mostBuffered)
                guard error.overLong else {
                    throw .unreadable(path: path(name), library: layout.library, reason: error.description)
                }
                throw .notUsed(
                    path: path(name),
                    reason:
                        "\(error.description), which \(layout.library) never writes (its keys are \(layout.keyLength) hex digits)"
                )
            }
        }
        let journal: DiskLruJournal
        do { journal = try reader.finish() } catch {
            throw .unreadable(path: path(name), library: layout.library, reason: error.description)
        }
        noteBuffered(reader.mostBuffered)
        guard name == JournalIndex.journalName else { return (journal, .none) }
        let after = try? file.status()
        let identity = after.flatMap { $0.size == UInt64(reader.length) ? Identity($0) : nil }
        return (journal, JournalFile(identity: identity, appendable: !journal.endsUnterminated(length: reader.length)))
    }

    /// Adds `lines` (complete lines) to `journal` and to its file: appended to `journal` when it
    /// is still the file `known` names and `rule` (the library's, unless the caller says) does not
    /// call for a rewrite, else the whole journal rewritten as the library rewrites it. Nil when
    /// `journal` changed since it was read (nothing was written: read it again).
    ///
    /// With `unsynced`, appended lines are written but not yet flushed to disk: the descriptor is
    /// left there, open, for the caller to `fsync` and close once it no longer holds the index's
    /// state (a batch's `fsync` then never stalls the threads that record stores and hits).
    func write(
        _ lines: [UInt8], to journal: inout DiskLruJournal, known: JournalFile, in directory: FileDescriptor,
        rule: DiskLruJournal.RebuildRule? = nil, unsynced: UnsyncedAppend? = nil
    ) throws(CacheIndexError) -> JournalFile? {
        let rule = rule ?? layout.rebuild
        guard !lines.isEmpty || journal.needsRebuild(rule) else { return known }
        do throws(DiskLruJournal.Corruption) {
            try journal.append(lines, header: layout.header, dialect: layout.dialect)
        } catch {
            throw .unreadable(path: path(JournalIndex.journalName), library: layout.library, reason: error.description)
        }
        if !known.appendable || known.identity == nil || journal.needsRebuild(rule) {
            let length = try replaceJournal(with: journal, in: directory)
            journal.becomeRebuilt(length: length)
            return JournalFile(identity: Identity.of(directory), appendable: true)
        }
        // The library deletes a `journal.tmp` when it opens the cache (`processJournal`); so does
        // imgwarm before it appends: whatever stands there (a link, a FIFO) is removed, not followed.
        do { try directory.removeEntryIfPresent(JournalIndex.temporaryName) } catch {
            throw .system(path: path(JournalIndex.temporaryName), error)
        }
        let name = JournalIndex.journalName
        let opening: RegularFileOpening
        do { opening = try directory.openRegularFileForAppending(name) } catch {
            throw .system(path: path(name), error)
        }
        guard case .opened(let file, let info) = opening else { return nil }
        guard Identity(info) == known.identity else {
            file.close()
            return nil
        }
        do throws(SystemError) {
            let after: FileStatus?
            if let unsynced {
                do throws(SystemError) { try file.writeAll(lines) } catch {
                    file.close()
                    throw error
                }
                after = try? file.status()
                unsynced.file = file
            } else {
                after = try file.writeAllSynchronizedAndClose(lines)
            }
            let grown = after.flatMap { $0.size == info.size + UInt64(lines.count) ? Identity($0) : nil }
            return JournalFile(identity: grown, appendable: true)
        } catch {
            throw .system(path: path(name), error)
        }
    }

    /// The journal's descriptor after an append whose `fsync` waits (`write`'s `unsynced`).
    final class UnsyncedAppend {
        var file: FileDescriptor?

        /// Flushes the appended lines to disk and closes the descriptor (nothing when none).
        func synchronize(path: String) throws(CacheIndexError) {
            guard let file else { return }
            self.file = nil
            do throws(SystemError) {
                do throws(SystemError) { try file.synchronize() } catch {
                    file.close()
                    throw error
                }
                try file.closeAfterWriting()
            } catch {
                throw .system(path: path, error)
            }
        }
    }

    /// Writes `bytes` to a new `journal.tmp`, flushed to disk, renames it over `journal`, and
    /// removes `journal.bkp` (the library removes a backup once a journal exists). All three are
    /// names in the open cache folder: whatever stands at `journal.tmp` (a link, a FIFO) is
    /// removed, never followed, and the new one is created exclusively.
    /// The rewrite of `journal` is written in chunks (`DiskLruJournal.writeRebuilt`); returns its length.
    func replaceJournal(with journal: DiskLruJournal, in directory: FileDescriptor) throws(CacheIndexError) -> Int {
        var length = 0
        do {
            try directory.replaceFile(JournalIndex.journalName, through: JournalIndex.temporaryName) {
                (file: FileDescriptor) throws(SystemError) in
                length = try journal.writeRebuilt(header: layout.header, chunkSize: JournalIndex.chunkSize) {
                    (chunk: [UInt8]) throws(SystemError) in try file.writeAll(chunk)
                }
            }
        } catch {
            throw .system(path: path(JournalIndex.temporaryName), error)
        }
        do { try directory.removeEntryIfPresent(JournalIndex.backupName) } catch {
            throw .system(path: path(JournalIndex.backupName), error)
        }
        return length
    }
}
