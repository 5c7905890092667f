#if canImport(Glibc)
    import Glibc
#endif

/// `readdir` and `fstatat` of every name of one folder, in directory order, for `clean`'s walks
/// of folders of millions of files.
///
/// Almost all of such a walk is the kernel's `fstatat` (path lookup and the inode's attributes;
/// `readdir` is a sixth of it), and `clean` walks twice. With a second processor, the names are
/// read in batches and each batch's `fstatat` calls are split between the calling thread and one
/// helper thread (`imgwarm-walk`, for `clean` and `stats`; it ends with the walk). A folder of one
/// batch or less is walked on the calling thread alone. No String
/// is made: `fstatat` gets the bytes `readdir` returned, copied into the batch with their NUL.
/// Together with no String per file in `DiskCache.walkEntries`, this took `clean --dry-run` of
/// 1,000,000 files on tmpfs from 7.2–8.1 s to 4.3–4.5 s (docs/performance.md, "Other jobs").
public final class FolderWalk: @unchecked Sendable {
    public static let defaultBatchSize = 2048
    private static let nameCapacity = 256

    private let folder: Int32
    private let batchSize: Int
    /// The batch: NUL-terminated names at `nameCapacity` bytes each, their lengths, what
    /// `fstatat` returned for each, and whether it succeeded (not when the name went away).
    private let names: UnsafeMutablePointer<CChar>
    private var lengths: [Int] = []
    private let statuses: UnsafeMutablePointer<stat>
    private let found: UnsafeMutablePointer<Bool>
    private var count = 0

    /// The helper's share of the current batch, `helperStart..<helperEnd`: `helperBusy` while it
    /// works on it; `stopping` ends the helper, which clears `helperRunning` as it goes.
    private let condition = Condition()
    private var helperStart = 0
    private var helperEnd = 0
    private var helperBusy = false
    private var helperRunning = false
    private var stopping = false

    private init(folder: Int32, batchSize: Int) {
        self.folder = folder
        self.batchSize = max(2, batchSize)
        names = .allocate(capacity: self.batchSize * FolderWalk.nameCapacity)
        statuses = .allocate(capacity: self.batchSize)
        found = .allocate(capacity: self.batchSize)
        lengths.reserveCapacity(self.batchSize)
    }

    deinit {
        names.deallocate()
        statuses.deallocate()
        found.deallocate()
    }

    /// Calls `body` with the bytes of every name of `directory` but `.` and `..` and its status
    /// (links not followed), in directory order; names `fstatat` fails on (gone since `readdir`)
    /// are skipped. The bytes are valid only during the call. `batchSize` names are read before
    /// they are stated (tests make it small).
    public static func forEach(
        in directory: FileDescriptor, batchSize: Int = FolderWalk.defaultBatchSize,
        _ body: (UnsafeBufferPointer<UInt8>, FileStatus) throws -> Void
    ) throws {
        let walk = FolderWalk(folder: directory.rawValue, batchSize: batchSize)
        defer { walk.stopHelper() }
        try directory.forEachRawName { bytes in
            // readdir's names are at most 255 bytes.
            let offset = walk.count * FolderWalk.nameCapacity
            bytes.withMemoryRebound(to: CChar.self) { source in
                (walk.names + offset).update(from: source.baseAddress!, count: source.count)
            }
            walk.names[offset + bytes.count] = 0
            walk.lengths.append(bytes.count)
            walk.count += 1
            if walk.count == walk.batchSize { try walk.flush(body) }
        }
        try walk.flush(body)
    }

    /// Stats the batch (half on the helper when there is one), then hands it to `body` in order.
    private func flush(_ body: (UnsafeBufferPointer<UInt8>, FileStatus) throws -> Void) throws {
        guard count > 0 else { return }
        let parallel = count == batchSize && processorCount > 1
        if parallel {
            startHelperIfNeeded()
            let half = count / 2
            condition.withLock {
                helperStart = half
                helperEnd = count
                helperBusy = true
                condition.broadcast()
            }
            stat(0..<half)
            condition.withLock {
                while helperBusy { condition.wait() }
            }
        } else {
            stat(0..<count)
        }
        for index in 0..<count where found[index] {
            let start = UnsafeRawPointer(names + index * FolderWalk.nameCapacity).assumingMemoryBound(to: UInt8.self)
            try body(UnsafeBufferPointer(start: start, count: lengths[index]), FileStatus(statuses[index]))
        }
        count = 0
        lengths.removeAll(keepingCapacity: true)
    }

    private func stat(_ range: Range<Int>) {
        for index in range {
            found[index] =
                fstatat(folder, names + index * FolderWalk.nameCapacity, statuses + index, AT_SYMLINK_NOFOLLOW) == 0
        }
    }

    private func startHelperIfNeeded() {
        guard !helperRunning else { return }
        helperRunning = true
        startThread(name: "imgwarm-walk") { [self] in
            condition.lock()
            while true {
                while !helperBusy && !stopping { condition.wait() }
                if stopping { break }
                let range = helperStart..<helperEnd
                condition.unlock()
                stat(range)
                condition.lock()
                helperBusy = false
                condition.broadcast()
            }
            helperRunning = false
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Ends the helper and waits for it to be gone (it uses this object's buffers).
    private func stopHelper() {
        condition.withLock {
            stopping = true
            condition.broadcast()
            while helperRunning { condition.wait() }
        }
    }
}
