import ImgwarmSystem

extension MergeJob {
    /// The destination of a merge: opened as prefetch opens its cache (`CacheStore`, which
    /// creates it when absent and reads its index first), its cache lock, and what is held under
    /// each name. A dry run opens nothing for writing: it reads the destination when there is one
    /// and remembers what it would have stored.
    final class Target {
        private let store: CacheStore?
        private let lock: CacheLock?
        /// The destination's index as the library reads it (a journal); nil for a plain-files cache.
        let index: (any CacheIndex)?
        /// The destination folder, open (nil in a dry run of a destination that does not exist).
        private let descriptor: FileDescriptor?
        private let ownsDescriptor: Bool
        private let lockTimeout: Double
        private let location: CacheLocation
        /// The entries this run stored (a dry run: would have stored), by name, or by key for an
        /// index that keeps rows: the index lists them at its next batch, and a later source's
        /// copy is compared with them, not with what the index listed before.
        private var planned: [String: Held] = [:]

        init(_ location: CacheLocation, configuration: Configuration) throws(Error) {
            lockTimeout = configuration.lockTimeout
            self.location = location
            if configuration.dryRun {
                store = nil
                lock = nil
                ownsDescriptor = true
                if let folder = try? FileDescriptor.openFolder(location.folder) {
                    descriptor = folder
                    let index = location.makeIndex()
                    do { try index?.load() } catch {
                        folder.close()
                        throw .destination(.index(error))
                    }
                    self.index = index
                } else {
                    descriptor = nil
                    index = nil
                }
                return
            }
            let store: CacheStore
            do {
                store = try CacheStore(location: location)
                lock = try CacheLock(location: location, create: true)
            } catch {
                throw .destination(error)
            }
            self.store = store
            index = store.index
            descriptor = store.folderDescriptor
            ownsDescriptor = false
        }

        deinit {
            if ownsDescriptor { descriptor?.close() }
        }

        /// Runs `body` holding the cache lock exclusively (no prefetch, clean or other merge
        /// changes the folder meanwhile); a dry run locks nothing.
        func withLock(_ body: () throws(Error) -> Void) throws(Error) {
            guard let lock else { return try body() }
            do { try lock.lockExclusive(timeout: lockTimeout) } catch { throw .locked(error) }
            defer { lock.unlock() }
            try body()
        }

        /// What the destination holds under `name` (or, for an index that keeps rows, under the
        /// name its row of `key` gives) as the library reads it: nil when its index does not list
        /// it, a file of it is missing, or what is there is no file imgwarm reads.
        func existing(_ name: String, key: String?, limit: Int) -> Held? {
            if let held = planned[key ?? name] { return held }
            guard let descriptor else { return nil }
            var held = name
            var clock: Timestamp?
            if let key, let rows = index as? any RowCopyingIndex {
                guard let named = try? location.entryName(forKey: key, index: rows), let used = rows.lastUsed(key: key)
                else { return nil }
                (held, clock) = (named, used)
            } else if let index, index.check(name) != nil {
                return nil
            }
            guard case .files(let files)? = try? MergeJob.readEntry(held, in: descriptor, index: index, limit: limit)
            else { return nil }
            return Held(files, name: held, clock: clock ?? MergeJob.clock(of: files, index: index))
        }

        /// Stores `entry` under `name` with its times and companions, then has the index list it
        /// (a journal's `CLEAN` line; `row`, copied, for an index that keeps rows), in batches as
        /// prefetch lists its stores (at most a second; `finish` writes the last).
        func store(_ entry: EntryFiles, as name: String, held: Held, row: CacheIndexRow?) throws(Error) {
            planned[row?.key ?? name] = held
            guard let store else { return }
            let times = FileTimes(access: .set(entry.info.accessed), modification: .set(entry.info.modified))
            var companions: [String: [UInt8]] = [:]
            var companionTimes: [String: FileTimes] = [:]
            for companion in entry.companions {
                companions[companion.name] = companion.bytes
                companionTimes[companion.name] = FileTimes(
                    access: .set(companion.info.accessed), modification: .set(companion.info.modified))
            }
            let copied = CacheStore.CopiedEntry(times: times, companions: companions, companionTimes: companionTimes)
            var failure: StoreFailure?
            entry.bytes.withUnsafeBytes { raw in
                do throws(StoreFailure) { try store.store(raw, as: name, copied: copied) } catch { failure = error }
            }
            if let failure { throw .store(name, failure) }
            if let row, let copying = index as? any RowCopyingIndex { copying.didCopy(name, row: row) }
        }

        /// Writes what the index still holds (nothing in a dry run).
        func finish() throws(Error) {
            guard let store, let lock else { return }
            do { try lock.lockShared(timeout: lockTimeout) } catch { throw .locked(error) }
            defer { lock.unlock() }
            do { try store.flushIndex(lockTimeout: lockTimeout) } catch { throw .index(error) }
        }
    }
}
