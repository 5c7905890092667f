import ImgwarmSystem

/// Reading one entry of a cache folder that is not imgwarm's (a source of `merge`, and the
/// destination's entry it is compared with), by the rules of docs/hardening.md, "A cache folder is
/// untrusted input": names are plain names resolved from an open descriptor of the folder, every
/// folder of the name is opened without following a link, and the file only when it is a regular
/// file (`openRegularFileUntouched`), its access time left as it was.
extension MergeJob {
    /// One entry's files as they are in a cache folder.
    struct EntryFiles {
        /// The entry's file (the one `CacheLocation.entryName(forKey:index:)` names).
        var bytes: [UInt8]
        var info: FileStatus
        /// Its companion files (`CompanionFilesIndex`), by name, in the index's order, each with
        /// its own status (its times).
        var companions: [(name: String, bytes: [UInt8], info: FileStatus)]
    }

    /// What decides between two copies of an entry: its name and what its files hold, its
    /// modification time and its clock. Only digests are kept (a dry run remembers what it would
    /// have stored).
    struct Held {
        var digests: [MD5.Digest]
        var modified: Timestamp
        var clock: Timestamp

        init(_ entry: EntryFiles, name: String, clock: Timestamp) {
            digests =
                [MD5.digest(Array(name.utf8) + [0] + entry.bytes)]
                + entry.companions.map { MD5.digest(Array($0.name.utf8) + [0] + $0.bytes) }
            modified = entry.info.modified
            self.clock = clock
        }

        /// The same bytes in every file and the same modification time: nothing to merge.
        func sameFiles(as other: Held) -> Bool { digests == other.digests && modified == other.modified }
    }

    /// What stands at an entry's name.
    enum EntryRead {
        case files(EntryFiles)
        /// No file (or a companion missing): the library has no such entry.
        case absent
        /// Something imgwarm does not copy, and why in words (a link, a FIFO, a name that is not
        /// plain, a file over the limit).
        case refused(String)
    }

    /// One file of the folder, read.
    enum FileRead {
        case bytes([UInt8], FileStatus)
        case absent
        case refused(String)
    }

    /// Reads the file `name` (plain names joined by `/`: Fresco's shard folders) of `folder`, at
    /// most `limit` bytes.
    static func readFile(_ name: String, in folder: FileDescriptor, limit: Int) throws(SystemError) -> FileRead {
        let (opening, restore) = try folder.openUntrustedFile(name)
        switch opening {
        case .absent: return .absent
        case .other(let why): return .refused(why)
        case .opened(let file, let info):
            defer {
                if let restore { try? file.setAccessTime(restore) }
                file.close()
            }
            guard info.size <= UInt64(limit) else {
                return .refused("it is larger than the \(limit) bytes merge copies of one file")
            }
            var bytes = [UInt8](repeating: 0, count: Int(info.size))
            var count = 0
            while count < bytes.count {
                let read = try file.read(into: &bytes, from: count)
                if read == 0 { break }
                count += read
            }
            guard count == bytes.count else { return .refused("it changed while it was read") }
            return .bytes(bytes, info)
        }
    }

    /// The entry `name` of `folder` with the companions `index` gives it.
    static func readEntry(_ name: String, in folder: FileDescriptor, index: (any CacheIndex)?, limit: Int)
        throws(SystemError) -> EntryRead
    {
        let main: (bytes: [UInt8], info: FileStatus)
        switch try readFile(name, in: folder, limit: limit) {
        case .absent: return .absent
        case .refused(let why): return .refused(why)
        case .bytes(let bytes, let info): main = (bytes, info)
        }
        var companions: [(name: String, bytes: [UInt8], info: FileStatus)] = []
        for companion in (index as? any CompanionFilesIndex)?.companions(of: name) ?? [] {
            switch try readFile(companion, in: folder, limit: limit) {
            case .absent: return .absent
            case .refused(let why): return .refused("its \(companion): \(why)")
            case .bytes(let bytes, let info): companions.append((companion, bytes, info))
            }
        }
        return .files(EntryFiles(bytes: main.bytes, info: main.info, companions: companions))
    }

    /// The clock that decides between two copies of an entry (docs/merge.md): when the library
    /// received it (`ReceivedClockIndex`: OkHttp's `OkHttp-Received-Millis`), else its file's
    /// modification time (Kingfisher's expiry date, Fresco's last read, the others' store).
    static func clock(of entry: EntryFiles, index: (any CacheIndex)?) -> Timestamp {
        if let clocked = index as? any ReceivedClockIndex, let first = entry.companions.first,
            let received = clocked.receivedAt(companion: first.bytes)
        {
            return received
        }
        return entry.info.modified
    }

    /// The names of the entries of the source `folder` (open as `descriptor`), in the order
    /// they are merged: the index's (least recently used first) when the format keeps one,
    /// else the entry names of the folder, sorted. Also the names the index lists that are
    /// not plain names of the folder.
    static func entryNames(of location: CacheLocation, descriptor: FileDescriptor, index: (any CacheIndex)?)
        throws(SystemError) -> (names: [String], unsafe: [String])
    {
        if let index { return (index.listedNames, index.unsafeNames) }
        var names: [String] = []
        let format = location.format
        do {
            try FolderWalk.forEach(in: descriptor) { bytes, _ in
                guard bytes.first != UInt8(ascii: "."), format.isEntryName(bytes: bytes) else { return }
                names.append(String(decoding: bytes, as: UTF8.self))
            }
        } catch {
            throw (error as? SystemError) ?? SystemError(code: 5)
        }
        return (names.sorted(), [])
    }

    /// Up to three of the names of `descriptor`'s folder that are not hidden and do not have the
    /// format's entry-name shape (the clean guard's rule), and how many there are.
    static func foreignNames(in descriptor: FileDescriptor, format: any CacheFormat) throws(SystemError) -> (
        names: [String], count: Int
    ) {
        var names: [String] = []
        var count = 0
        do {
            try FolderWalk.forEach(in: descriptor) { bytes, _ in
                guard bytes.first != UInt8(ascii: "."), !format.isEntryName(bytes: bytes) else { return }
                count += 1
                if names.count < 3 { names.append(String(decoding: bytes, as: UTF8.self)) }
            }
        } catch {
            throw (error as? SystemError) ?? SystemError(code: 5)
        }
        return (names, count)
    }
}
