import ImgwarmSystem

/// What the state database says about one cache folder, for `imgwarm stats`.
extension StateStore {
    public struct Summary: Sendable {
        public var path: String
        public var exists = false
        public var trackedKeys = 0
        /// Rows whose file is no longer in the folder (ignored; the next clean removes them).
        public var staleRows = 0
        public var blacklisted = 0
        public var lastRun: RunRecord?
        /// Why the database could not be read; the counts read before it are kept.
        public var problem: String?

        public init(path: String) { self.path = path }
    }

    /// Reads the database at `path` if there is one, read-only and without creating it; a row
    /// whose file `isInFolder` does not know is counted as stale.
    public static func summary(path: String, lockTimeout: Double, isInFolder: (String) -> Bool) -> Summary {
        var summary = Summary(path: path)
        guard FileSystem.exists(path) else { return summary }
        summary.exists = true
        do {
            let state = try StateStore(path: path, busyTimeout: lockTimeout, readOnly: true)
            let counts = try state.counts()
            summary.trackedKeys = counts.trackedKeys
            summary.blacklisted = counts.blacklisted
            try state.forEachTrackedFileName { name in
                if !isInFolder(name) { summary.staleRows += 1 }
            }
            summary.lastRun = try state.lastRun()
        } catch {
            summary.problem = error.description
        }
        return summary
    }
}
