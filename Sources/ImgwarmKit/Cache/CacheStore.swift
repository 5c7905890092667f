import ImgwarmSystem
import Synchronization

/// Writes cache files the way a reader may never catch half-done: the bytes go to a temporary
/// file in imgwarm's private folder (same file system, outside the cache folder), then
/// `rename(2)` puts the complete file in place (docs/cache-contract.md §1).
public final class CacheStore: Sendable {
    public let location: CacheLocation
    /// Where temporary files go: `<private folder>/tmp`, or the cache folder itself (hidden
    /// names) when the private folder is on another file system.
    public let temporaryFolder: String
    let folderDescriptor: FileDescriptor
    let temporaryDescriptor: FileDescriptor
    /// Prefix of temporary file names: empty, or `.imgwarm-` when they live in the cache folder.
    public let temporaryPrefix: String
    private let counter = Mutex(0)
    /// Whether the cache folder's file system offers O_TMPFILE (learned on first use).
    private let anonymousFiles = Mutex<Bool?>(nil)

    /// The library's index of the folder (a journal), read before anything is written; nil for
    /// a plain-files cache.
    public let index: (any CacheIndex)?

    /// Opens (creating when missing) the cache folder and the temporary folder, and checks that
    /// both can be written. Throws before any download when they cannot, and before anything is
    /// written when the format's index is one the library would not read. `preloaded`: the
    /// index as a `CacheIndexPreload` of `location` read it, rather than read it now.
    public init(location: CacheLocation, preloaded: CacheIndexPreload? = nil) throws(CacheStoreError) {
        self.location = location
        // A file where a folder should be is named before the index is read inside it.
        if let file = FileSystem.nonFolder(onPath: location.folder) { throw .notADirectory(file) }
        if let preloaded {
            switch preloaded.wait() {
            case .success(let read): index = read
            case .failure(let error): throw .index(error)
            }
        } else {
            index = location.makeIndex()
            do { try index?.load() } catch { throw .index(error) }
        }
        try CacheStore.makeFolders(location.folder)
        do { try (index as? any FolderPreparingIndex)?.prepare() } catch { throw .index(error) }
        let folder = try CacheStore.openFolder(location.folder)
        var temporary = location.privateFolder + "/tmp"
        var prefix = ""
        do {
            try CacheStore.makeFolders(temporary)
        } catch {
            folder.close()
            throw error
        }
        if let folderInfo = try? folder.status(), let temporaryInfo = try? FileSystem.status(ofPath: temporary),
            folderInfo.device != temporaryInfo.device
        {
            // A rename cannot cross file systems: fall back to hidden names in the folder itself.
            temporary = location.folder
            prefix = ".imgwarm-"
        }
        let temporaryFD: FileDescriptor
        do {
            temporaryFD = try CacheStore.openFolder(temporary)
        } catch {
            folder.close()
            throw error
        }
        folderDescriptor = folder
        temporaryDescriptor = temporaryFD
        presentNames = CacheStore.snapshot(folder)
        temporaryFolder = temporary
        temporaryPrefix = prefix
        // Both must be writable: try it, as root bypasses the permission bits but not a
        // read-only mount.
        // An unnamed file (O_TMPFILE) where the file system has them: a `kill -9` between creating
        // and removing a named probe left `.imgwarm-probe-PID` behind (in the cache folder,
        // where SDWebImage counts it); a named one only where it has not, and stale ones are
        // removed with the stale temporary files.
        for (descriptor, path) in [(temporaryFD, temporary), (folder, location.folder)] {
            do throws(SystemError) {
                do {
                    try descriptor.createAnonymousFile(permissions: 0o600).close()
                } catch  where error.isUnsupported {
                    let probe = CacheStore.probePrefix + "\(FileSystem.processID)"
                    try descriptor.createFile(probe, permissions: 0o600).close()
                    try? descriptor.removeFile(probe)
                }
            } catch {
                folder.close()
                temporaryFD.close()
                throw .notWritable(path, error)
            }
        }
    }

    deinit {
        folderDescriptor.close()
        temporaryDescriptor.close()
    }

    private static func openFolder(_ path: String) throws(CacheStoreError) -> FileDescriptor {
        do { return try FileDescriptor.openFolder(path) } catch { throw .unusable(path, error) }
    }

    /// Removes temporary files left by imgwarm processes that no longer run (after `kill -9`,
    /// a crash, a second Ctrl-C), or older than a day; returns how many went.
    @discardableResult
    public func removeStaleTemporaryFiles(now: Timestamp = .now()) -> Int {
        var removed = 0
        let me = FileSystem.processID
        try? temporaryDescriptor.forEachEntry { record in
            guard let name = record.name else { return }
            // A writability probe of a process killed at that instant (see `init`).
            if name.hasPrefix(CacheStore.probePrefix), let pid = Int32(name.dropFirst(CacheStore.probePrefix.count)),
                pid != me, !FileSystem.processExists(pid), (try? temporaryDescriptor.removeFile(name)) != nil
            {
                removed += 1
                return
            }
            guard name.hasPrefix(temporaryPrefix), name.hasSuffix(".tmp") || name.hasSuffix(".part") else {
                return
            }
            let rest = name.dropFirst(temporaryPrefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]), pid != me,
                let info = try? temporaryDescriptor.status(of: name), info.kind == .file
            else { return }
            let gone = !FileSystem.processExists(pid)
            let old = info.modified.seconds < now.seconds - 86400
            if gone || old, (try? temporaryDescriptor.removeFile(name)) != nil { removed += 1 }
        }
        return removed
    }

    /// The name of a writability probe, before the process id (where `O_TMPFILE` is missing).
    static let probePrefix = ".imgwarm-probe-"

    /// True when the temporary folder is the cache folder (see `init`).
    public var usesHiddenTemporaryFiles: Bool { !temporaryPrefix.isEmpty }

    private static func makeFolders(_ path: String) throws(CacheStoreError) {
        if let info = try? FileSystem.status(ofPath: path) {
            guard info.kind == .directory else { throw .notADirectory(path) }
            return
        }
        let (parent, _) = CacheLocation.split(path)
        if parent != path && parent != "/" { try makeFolders(parent) }
        do { try FileSystem.makeFolder(path) } catch { throw .unusable(path, error) }
    }

    // MARK: Hits

    /// The names present when the run started, as the digests their hex prefixes spell; nil when
    /// the folder was too large to list cheaply. A name absent from it is a miss without a system
    /// call (a file written since by another process is fetched again, and the link replaces
    /// it); a name present is still checked with `fstatat`, so a file removed since is a miss.
    let presentNames: FingerprintSet?

    /// Folders whose directory file is larger than this (roughly 200,000 entries) are not listed.
    static let snapshotLimit = 8 << 20

    private static func snapshot(_ descriptor: FileDescriptor) -> FingerprintSet? {
        guard let info = try? descriptor.status(), info.size <= UInt64(snapshotLimit) else { return nil }
        var names = FingerprintSet(minimumCapacity: Int(info.size) / 40)
        do {
            try descriptor.forEachRawName { bytes in
                if let found = CacheStore.digest(ofNameBytes: bytes.baseAddress!, count: bytes.count) {
                    names.insert(found)
                }
            }
        } catch {
            return nil
        }
        return names
    }

    /// The digest a cache file name starts with (32 lower-case hex digits), or nil.
    static func digest(ofName name: String) -> MD5.Digest? {
        var name = name
        return name.withUTF8 { bytes in
            bytes.count >= 32 ? CacheStore.digest(ofNameBytes: bytes.baseAddress!, count: bytes.count) : nil
        }
    }

    private static func digest(ofNameBytes bytes: UnsafePointer<UInt8>, count: Int) -> MD5.Digest? {
        guard count >= 32, count == 32 || bytes[32] == UInt8(ascii: ".") else { return nil }
        var words: [UInt32] = [0, 0, 0, 0]
        for index in 0..<32 {
            let c = bytes[index]
            let value: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt32(c - UInt8(ascii: "a") + 10)
            default: return nil
            }
            // Each word holds 4 bytes, little-endian, as MD5.Digest stores them.
            let byteIndex = index / 2
            let shift = UInt32((byteIndex % 4) * 8 + (index % 2 == 0 ? 4 : 0))
            words[byteIndex / 4] |= value << shift
        }
        return MD5.Digest(a: words[0], b: words[1], c: words[2], d: words[3])
    }

    /// Gives a hit the times the format's reader sets on a read (SDWebImage, Nuke: the access
    /// time, whatever the mount's atime policy; Kingfisher: a new expiry date), and records the
    /// read in the format's index (a journal's `READ` line; with `response`, a 304's news). The
    /// caller holds the cache lock shared; `foundUnderLock` says it has held it since its lookup
    /// found the file, so no `clean` can have removed it and the index need not look again.
    /// `file`, the hit open since that lookup (`lookupChecking`), sets the times without looking
    /// the name up again.
    @discardableResult
    public func touch(
        _ name: String, now: Timestamp = .now(), revalidatedBy response: CacheIndexResponse? = nil,
        foundUnderLock: Bool = false, file: FileDescriptor? = nil
    ) -> Bool {
        if let index {
            // The index records a read only of a file that is there.
            guard foundUnderLock || (try? folderDescriptor.status(of: name)) != nil else { return false }
            index.recordRead(name, revalidatedBy: response)
            if let response, let updating = index as? any RevalidationUpdatingIndex {
                updateCompanions(of: name, by: response, in: updating)
            }
            try? index.flush(force: false, lockTimeout: 0)
        }
        // A plain-files cache needs no status first: setting the times of a file gone fails.
        let times = location.format.timesOnHit(now: now)
        guard times != FileTimes() else { return true }
        if foundUnderLock, let file { return (try? file.setTimes(times)) != nil }
        return (try? folderDescriptor.setTimes(of: name, times)) != nil
    }

    /// Writes what the index recorded (`CacheIndex.flush`), waiting up to `lockTimeout` for its
    /// lock; the caller holds the cache lock shared. Nothing to do for a plain-files cache.
    public func flushIndex(lockTimeout: Double) throws(CacheIndexError) {
        try index?.flush(force: true, lockTimeout: lockTimeout)
    }

    // MARK: Writing

    /// A fresh temporary file name (unique in this process).
    public func temporaryName() -> String {
        let serial = counter.withLock { value -> Int in
            value += 1
            return value
        }
        return "\(temporaryPrefix)\(FileSystem.processID)-\(serial).tmp"
    }

    /// Writes `bytes` under `name`, atomically; nothing is left behind on failure.
    ///
    /// The fast way: an unnamed file (O_TMPFILE) in the cache folder, written, then linked under
    /// its name: one directory operation, never visible half-written, and nothing to clean up after
    /// a crash. A name already taken (a refresh replacing a file, another process) goes through a
    /// temporary name in the private folder and a `rename(2)`, which replaces atomically.
    /// `publish` runs the final directory change (under the cache lock, for the caller).
    ///
    /// With an index, the entry's other files (`CacheIndex.companions`) are written first, and
    /// the index records the entry once it is in place.
    ///
    /// `copied` stores an entry copied from another cache of the format (`MergeJob`): its files
    /// get these times instead of the format's `timesOnStore`, and its companions these bytes
    /// instead of what the index writes for a download. nil (a download) by default.
    public func store(
        _ bytes: UnsafeRawBufferPointer, as name: String, response: CacheIndexResponse? = nil,
        copied: CopiedEntry? = nil,
        publish: (() throws(StoreFailure) -> Void) throws(StoreFailure) -> Void = { try $0() }
    ) throws(StoreFailure) {
        try makeParentFolders(of: name)
        try storeCompanions(of: name, response: response, copied: copied)
        try storeFile(bytes, as: name, times: copied?.times, publish: publish)
        recordStored(name, response: response)
    }

    /// What an entry copied from another cache keeps of it (`store(_:as:response:copied:)`).
    public struct CopiedEntry: Sendable {
        /// The times the entry's file gets, and each companion without times of its own.
        public var times: FileTimes
        /// The bytes of each companion file (`CompanionFilesIndex.companions`), by name.
        public var companions: [String: [UInt8]]
        /// The times of each companion file, by name, as its source had them.
        public var companionTimes: [String: FileTimes]

        public init(times: FileTimes, companions: [String: [UInt8]] = [:], companionTimes: [String: FileTimes] = [:]) {
            self.times = times
            self.companions = companions
            self.companionTimes = companionTimes
        }
    }

    /// Makes the folders a name with slashes lies in (Fresco's shard folders), inside the cache folder.
    func makeParentFolders(of name: String) throws(StoreFailure) {
        guard let slash = name.lastIndex(of: "/") else { return }
        var path = location.folder
        for component in name[..<slash].split(separator: "/") {
            path = CacheLocation.join(path, String(component))
            do throws(SystemError) {
                try FileSystem.makeFolder(path)
            } catch  where error.isAlreadyThere {
            } catch {
                throw StoreFailure(error, step: "create the folder \(path)")
            }
        }
    }

    /// Writes the other files of entry `name` before it: empty, or what a `ResponseCompanionsIndex`
    /// keeps of `response`.
    func storeCompanions(of name: String, response: CacheIndexResponse?, copied: CopiedEntry? = nil)
        throws(StoreFailure)
    {
        guard let index = index as? any CompanionFilesIndex else { return }
        for companion in index.companions(of: name) {
            let contents =
                copied?.companions[companion]
                ?? (index as? any ResponseCompanionsIndex)?.contents(
                    ofCompanion: companion, of: name, response: response)
                ?? []
            var failure: StoreFailure?
            contents.withUnsafeBytes { bytes in
                do throws(StoreFailure) {
                    try storeFile(bytes, as: companion, times: copied.map { $0.companionTimes[companion] ?? $0.times })
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
    }

    /// A 304 rewrites the companions the library rewrites (OkHttp's `Cache.update` of `<key>.0`),
    /// each atomically, then the index lists the entry again with its new lengths (a `CLEAN`
    /// line after the read's `READ`, as OkHttp's edit of the entry writes). A companion that
    /// cannot be read or written is left as it was: the 304 is still a read.
    private func updateCompanions(
        of name: String, by response: CacheIndexResponse, in index: any RevalidationUpdatingIndex
    ) {
        var changed = false
        for companion in index.companions(of: name) {
            guard
                case .bytes(let stored) = FileSystem.readRegularFile(
                    atPath: CacheLocation.join(location.folder, companion), limit: index.updateLimit),
                let bytes = index.updated(companion: companion, of: name, stored: stored, response: response)
            else { continue }
            var failed = false
            bytes.withUnsafeBytes { raw in
                do throws(StoreFailure) { try storeFile(raw, as: companion) } catch { failed = true }
            }
            if !failed { changed = true }
        }
        if changed { index.didStore(name) }
    }

    func recordStored(_ name: String, response: CacheIndexResponse?) {
        guard let index else { return }
        index.recordStore(name, response: response)
        try? index.flush(force: false, lockTimeout: 0)
    }

    private func storeFile(
        _ bytes: UnsafeRawBufferPointer, as name: String, times copiedTimes: FileTimes? = nil,
        publish: (() throws(StoreFailure) -> Void) throws(StoreFailure) -> Void = { try $0() }
    ) throws(StoreFailure) {
        guard anonymousFiles.withLock({ $0 }) != false else {
            let temporary = try writeTemporary(bytes)
            do throws(StoreFailure) {
                try publish { () throws(StoreFailure) in
                    try renameIntoPlace(temporaryName: temporary, name: name, times: copiedTimes)
                }
            } catch {
                discard(temporaryName: temporary)
                throw error
            }
            return
        }
        let file: FileDescriptor
        do {
            file = try folderDescriptor.createAnonymousFile()
        } catch  where error.isUnsupported {
            anonymousFiles.withLock { $0 = false }
            return try storeFile(bytes, as: name, times: copiedTimes, publish: publish)
        } catch {
            throw StoreFailure(error, step: "create a file")
        }
        anonymousFiles.withLock { $0 = true }
        defer { file.close() }
        do { try file.writeAll(bytes) } catch { throw StoreFailure(error, step: "write") }
        let times = copiedTimes ?? location.format.timesOnStore(now: .now())
        if times != FileTimes() {
            do { try file.setTimes(times) } catch { throw StoreFailure(error, step: "set the file's times") }
        }
        try publish { () throws(StoreFailure) in
            do throws(SystemError) {
                try folderDescriptor.link(anonymous: file, as: name)
                return
            } catch  where error.isAlreadyThere {
                // Replace: link under a temporary name in the private folder, then rename over.
            } catch {
                throw StoreFailure(error, step: "move the file into the cache")
            }
            let temporary = temporaryName()
            do throws(SystemError) {
                try temporaryDescriptor.link(anonymous: file, as: temporary)
            } catch {
                throw StoreFailure(error, step: "move the file into the cache")
            }
            try renameIntoPlace(temporaryName: temporary, name: name, times: copiedTimes)
        }
    }

    /// Writes `bytes` to a new temporary file and returns its name (in `temporaryFolder`).
    public func writeTemporary(_ bytes: UnsafeRawBufferPointer) throws(StoreFailure) -> String {
        let temporary = temporaryName()
        let file: FileDescriptor
        do { file = try temporaryDescriptor.createFile(temporary) } catch {
            throw StoreFailure(error, step: "create a temporary file")
        }
        var failure: SystemError?
        do { try file.writeAll(bytes) } catch { failure = error }
        do { try file.closeAfterWriting() } catch { failure = failure ?? error }  // closes in any case
        if let failure {
            try? temporaryDescriptor.removeFile(temporary)
            throw StoreFailure(failure, step: "write")
        }
        return temporary
    }

    /// Renames a complete temporary file (a name inside `temporaryFolder`) to `name`, with the
    /// times the format gives a stored file; with an index, as `store` does.
    /// `times`: an entry copied from another cache whose times carry over (nil: the format's).
    public func moveIntoPlace(
        temporaryName: String, name: String, response: CacheIndexResponse? = nil, times: FileTimes? = nil
    ) throws(StoreFailure) {
        do throws(StoreFailure) {
            try makeParentFolders(of: name)
            try storeCompanions(of: name, response: response)
        } catch {
            try? temporaryDescriptor.removeFile(temporaryName)
            throw error
        }
        try renameIntoPlace(temporaryName: temporaryName, name: name, times: times)
        recordStored(name, response: response)
    }

    func renameIntoPlace(temporaryName: String, name: String, times copiedTimes: FileTimes? = nil)
        throws(StoreFailure)
    {
        do {
            let times = copiedTimes ?? location.format.timesOnStore(now: .now())
            if times != FileTimes() { try temporaryDescriptor.setTimes(of: temporaryName, times) }
            try temporaryDescriptor.rename(temporaryName, to: name, in: folderDescriptor)
        } catch {
            try? temporaryDescriptor.removeFile(temporaryName)
            throw StoreFailure(error, step: "move the file into the cache")
        }
    }

    /// Removes a temporary file that will not be used.
    public func discard(temporaryName: String) {
        try? temporaryDescriptor.removeFile(temporaryName)
    }
}

/// The cache folder or its private folder cannot be used: the run stops.
public enum CacheStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case notADirectory(String)
    case unusable(String, SystemError)
    case notWritable(String, SystemError)
    /// The format's index (a journal) is one the library would not read, or cannot be read.
    case index(CacheIndexError)

    public var description: String {
        switch self {
        case .index(let error): return error.description
        case .notADirectory(let path): return "\(path) is not a folder"
        case .unusable(let path, let error): return "cannot use \(path): \(error)"
        case .notWritable(let path, let error): return "cannot write in \(path): \(error)"
        }
    }
}

/// Storing one file failed (a per-URL failure; a full disk also ends the run).
public struct StoreFailure: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    /// The call that failed and what it was given, when known (`SystemError.call`, `.path`).
    public var call: String?
    public var path: String?
    public var step: String
    /// Set when the failure is a cache lock wait that ran out.
    public var lockTimeout: CacheLock.Timeout?

    public init(code: Int32, step: String, lockTimeout: CacheLock.Timeout? = nil) {
        self.code = code
        self.step = step
        self.lockTimeout = lockTimeout
    }

    /// `step` failed with `error`.
    public init(_ error: SystemError, step: String) {
        code = error.code
        call = error.call
        path = error.path
        self.step = step
    }

    /// True when nothing more can be written: disk full or out of quota.
    public var isDiskFull: Bool { SystemError(code: code).isDiskFull }

    public var description: String {
        if let lockTimeout { return lockTimeout.description }
        return "cannot \(step): \(SystemError(code: code, call: call, path: path))"
    }
}
