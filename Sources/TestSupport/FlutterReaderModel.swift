import Foundation

/// A reader of flutter_cache_manager's database written from the library's Dart source (v3.4.1:
/// `CacheObjectProvider.get`, `CacheStore.retrieveCacheData`, `CacheManager._pushFileToStream`),
/// reading through the `sqlite3` CLI so that it shares nothing with imgwarm's writer: a key hits
/// when its row exists, the file `<folder>/<relativePath>` exists and `validTill` is not before now.
public struct FlutterReaderModel {
    public struct Row: Equatable {
        public var id: Int64
        public var key: String
        public var relativePath: String
        public var eTag: String?
        public var validTill: Int64
        public var touched: Int64
        public var length: Int64?

        public init(
            id: Int64, key: String, relativePath: String, eTag: String?, validTill: Int64, touched: Int64,
            length: Int64?
        ) {
            (self.id, self.key, self.relativePath, self.eTag) = (id, key, relativePath, eTag)
            (self.validTill, self.touched, self.length) = (validTill, touched, length)
        }
    }

    public var database: String
    public var folder: String

    public init(database: String, folder: String) {
        self.database = database
        self.folder = folder
    }

    public static func sqlite3(_ database: String, _ sql: String) throws -> String {
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-batch", "-noheader", "-separator", "\u{1f}", database, sql],
            timeout: 30)
        guard result.status == 0 else { throw CLIFailure(message: result.stderrText) }
        return result.stdoutText
    }

    public struct CLIFailure: Error { public var message: String }

    public func rows() throws -> [Row] {
        let text = try FlutterReaderModel.sqlite3(
            database,
            "SELECT _id, key, relativePath, ifnull(eTag, '\u{1e}'), validTill, touched, ifnull(length, '\u{1e}') FROM cacheObject ORDER BY _id"
        )
        return text.split(separator: "\n").map { line in
            let f = line.split(separator: "\u{1f}", omittingEmptySubsequences: false).map(String.init)
            return Row(
                id: Int64(f[0])!, key: f[1], relativePath: f[2], eTag: f[3] == "\u{1e}" ? nil : f[3],
                validTill: Int64(f[4])!, touched: Int64(f[5])!, length: f[6] == "\u{1e}" ? nil : Int64(f[6]))
        }
    }

    /// nil for a hit, else why the library misses.
    public func miss(_ key: String, now: Int64) throws -> String? {
        guard let row = try rows().first(where: { $0.key == key }) else { return "no row" }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder + "/" + row.relativePath, isDirectory: &isFolder),
            !isFolder.boolValue
        else { return "no file" }
        return row.validTill < now ? "expired" : nil
    }

    /// The ids `CacheStore._cleanupCache` removes in one run at `now` (its two queries, each
    /// at most 100 rows), done again until a run removes nothing.
    public func cleanupIDs(now: Int64, capacity: Int = 200, stale: Int64 = 30 * 86_400_000) throws -> Set<Int64> {
        var all = try rows()
        var removed = Set<Int64>()
        while true {
            let old = all.filter { $0.touched < now - 86_400_000 }.sorted { $0.touched > $1.touched }
            var round = Set(old.dropFirst(capacity).prefix(100).map(\.id))
            round.formUnion(all.filter { $0.touched < now - stale }.prefix(100).map(\.id))
            if round.isEmpty { return removed }
            removed.formUnion(round)
            all.removeAll { round.contains($0.id) }
        }
    }
}
