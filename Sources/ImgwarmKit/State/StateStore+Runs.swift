import SQLite

/// The log of runs, and the counts `imgwarm stats` shows.
extension StateStore {
    public struct RunRecord: Sendable, Equatable {
        public var command: String
        public var startedAt: Double
        public var finishedAt: Double
        public var totals: Totals
        public var interrupted: Bool

        /// The counts the log keeps of a run (the columns of `runs`).
        public struct Totals: Sendable, Equatable {
            public var lines = 0
            public var downloaded = 0
            public var cached = 0
            public var revalidated = 0
            public var failed = 0
            public var blacklisted = 0
            public var invalid = 0

            public init(
                lines: Int = 0, downloaded: Int = 0, cached: Int = 0, revalidated: Int = 0, failed: Int = 0,
                blacklisted: Int = 0, invalid: Int = 0
            ) {
                self.lines = lines
                self.downloaded = downloaded
                self.cached = cached
                self.revalidated = revalidated
                self.failed = failed
                self.blacklisted = blacklisted
                self.invalid = invalid
            }
        }

        public init(command: String, startedAt: Double, finishedAt: Double, totals: Totals, interrupted: Bool) {
            self.command = command
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.totals = totals
            self.interrupted = interrupted
        }
    }

    public func recordRun(_ run: RunRecord) throws(StateError) {
        let t = run.totals
        try self.run(
            try statement(
                """
                INSERT INTO runs(command, started_at, finished_at, lines, downloaded, cached, revalidated, failed, blacklisted, invalid, interrupted)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """),
            [
                .text(run.command), .real(run.startedAt), .real(run.finishedAt), .integer(Int64(t.lines)),
                .integer(Int64(t.downloaded)),
                .integer(Int64(t.cached)), .integer(Int64(t.revalidated)), .integer(Int64(t.failed)),
                .integer(Int64(t.blacklisted)),
                .integer(Int64(t.invalid)), .integer(run.interrupted ? 1 : 0),
            ])
        // Keep the log short: the last thousand runs.
        try self.run(try statement("DELETE FROM runs WHERE id <= (SELECT max(id) FROM runs) - 1000"), [])
    }

    public func lastRun() throws(StateError) -> RunRecord? {
        var found: RunRecord?
        try query(
            "SELECT command, started_at, finished_at, lines, downloaded, cached, revalidated, failed, blacklisted, invalid, interrupted FROM runs ORDER BY id DESC LIMIT 1"
        ) { row in
            var totals = RunRecord.Totals()
            totals.lines = Int(row.int64(3))
            totals.downloaded = Int(row.int64(4))
            totals.cached = Int(row.int64(5))
            totals.revalidated = Int(row.int64(6))
            totals.failed = Int(row.int64(7))
            totals.blacklisted = Int(row.int64(8))
            totals.invalid = Int(row.int64(9))
            found = RunRecord(
                command: row.text(0) ?? "", startedAt: row.double(1), finishedAt: row.double(2), totals: totals,
                interrupted: row.int64(10) != 0)
        }
        return found
    }

    /// How many keys have a record, and how many rows the blacklist holds.
    public func counts() throws(StateError) -> (trackedKeys: Int, blacklisted: Int) {
        var keys = 0
        var blacklisted = 0
        try query("SELECT (SELECT count(*) FROM entries), (SELECT count(*) FROM blacklist)") { row in
            keys = Int(row.int64(0))
            blacklisted = Int(row.int64(1))
        }
        return (keys, blacklisted)
    }
}
