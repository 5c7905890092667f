import ImgwarmSystem

/// The lock that lets prefetches and cleans share one cache folder (docs/usage.md, "Running unattended"): `flock` on
/// `<private folder>/lock`.
///
/// - A prefetch takes it *shared*, briefly, around each change it makes to the folder: renaming
///   a finished download into place, setting a hit's access time. Prefetches never wait for
///   each other.
/// - A clean takes it *exclusive* for its deletion walk only, judges each file as that walk
///   finds it, and deletes it only if it is still that file (same inode, same date): a download
///   or a read that happened before the lock is seen with its new date, and none can happen
///   during it.
///
/// Each holder opens its own descriptor (flock locks belong to the open file, so threads must
/// not share one). Waits are bounded (`--lock-timeout`); running out is a run-level failure.
public final class CacheLock {
    /// Seconds any imgwarm command waits for a lock another process holds (`--lock-timeout`),
    /// and for the state database's write lock. `30` by default.
    public static let defaultTimeout = 30.0

    public let path: String
    private let descriptor: FileDescriptor
    private var held = false

    /// Opens the lock file; with `create`, makes the private folder first when it is missing.
    public init(location: CacheLocation, create: Bool = false) throws(CacheStoreError) {
        path = location.privateFolder + "/lock"
        if create {
            let (parent, _) = CacheLocation.split(location.privateFolder)
            try? FileSystem.makeFolder(parent)
            try? FileSystem.makeFolder(location.privateFolder)
        }
        do {
            descriptor = try FileDescriptor.openOrCreate(path)
        } catch {
            throw .unusable(path, error)
        }
    }

    deinit {
        descriptor.close()
    }

    /// The lock was not granted within the allowed time.
    public struct Timeout: Error, Equatable, Sendable, CustomStringConvertible {
        public var path: String
        public var seconds: Double
        public var exclusive: Bool
        /// Who held the lock when the wait ended, as the kernel lists it (`/proc/locks`); empty when
        /// it could not tell. Nothing is guessed: any process may `flock` the file.
        public var holders: [FileSystem.LockHolder] = []

        public init(path: String, seconds: Double, exclusive: Bool, holders: [FileSystem.LockHolder] = []) {
            self.path = path
            self.seconds = seconds
            self.exclusive = exclusive
            self.holders = holders
        }

        public var description: String {
            let who = holders.isEmpty ? "another process" : holders.map(\.description).joined(separator: ", ")
            return
                "the cache lock \(path) is held by \(who) for longer than \(Quantities.formatDecimal(seconds, digits: 1)) s (\(Setting.lockTimeout))"
        }
    }

    /// True while this lock holds the cache's lock (shared or exclusive).
    public var isHeld: Bool { held }

    public func lockShared(timeout: Double) throws(Timeout) {
        try acquire(exclusive: false, timeout: timeout)
    }

    /// With `untilStop`, a stop signal (`StopSignals`) ends the wait too (a `Timeout` the caller
    /// tells apart by the signal).
    public func lockExclusive(timeout: Double, untilStop: Bool = false) throws(Timeout) {
        try acquire(exclusive: true, timeout: timeout, untilStop: untilStop)
    }

    private func acquire(exclusive: Bool, timeout: Double, untilStop: Bool = false) throws(Timeout) {
        guard !held else { return }
        do {
            if untilStop {
                try descriptor.lockUntilStop(exclusive: exclusive, timeout: timeout)
            } else {
                try descriptor.lock(exclusive: exclusive, timeout: timeout)
            }
        } catch {
            throw Timeout(
                path: path, seconds: timeout, exclusive: exclusive, holders: FileSystem.lockHolders(ofPath: path))
        }
        held = true
    }

    public func unlock() {
        guard held else { return }
        descriptor.unlock()
        held = false
    }

    /// Runs `body` holding the shared lock. A lock the caller already held (shared or exclusive)
    /// stays held afterwards: only a lock taken here is released here.
    public func withShared<T>(timeout: Double, _ body: () throws -> T) throws -> T {
        let takenHere = !held
        try lockShared(timeout: timeout)
        defer { if takenHere { unlock() } }
        return try body()
    }
}
