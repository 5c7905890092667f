import Foundation
import SQLite
import TestSupport
import Testing

@Suite struct SQLiteDatabaseTests {
    @Test func roundTripThroughARealFile() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("state.sqlite")
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("PRAGMA journal_mode=WAL; CREATE TABLE t(k TEXT PRIMARY KEY, n INTEGER, r REAL, z TEXT)")
            let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
            try db.transaction { () throws(SQLiteError) in
                try insert.run([.text("a'b\u{e9}"), .integer(42), .real(1.5), .null])
                try insert.run([.text("second"), .integer(-7), .real(0), .text("x")])
            }
            #expect(db.changes == 1)
        }
        let reopened = try SQLiteDatabase(path: path)
        #expect(try reopened.scalarText("PRAGMA journal_mode") == "wal")
        let select = try reopened.prepare("SELECT k, n, r, z FROM t ORDER BY n DESC")
        try select.bind([])
        #expect(try select.step())
        #expect(select.text(0) == "a'b\u{e9}")
        #expect(select.int64(1) == 42)
        #expect(select.double(2) == 1.5)
        #expect(select.isNull(3))
        #expect(try select.step())
        #expect(select.int64(1) == -7)
        #expect(try select.step() == false)
    }

    @Test func garbageFileIsReportedAsCorruption() throws {
        let temp = try TemporaryFolder()
        let path = try temp.write("bad.sqlite", Data(repeating: 0x5A, count: 8192))
        do {
            let db = try SQLiteDatabase(path: path)
            _ = try db.scalarText("SELECT count(*) FROM sqlite_master")
            Issue.record("reading a garbage file should fail")
        } catch {
            #expect(error.isCorruption, "\(error)")
        }
    }

    @Test func failedTransactionRollsBack() throws {
        let temp = try TemporaryFolder()
        let db = try SQLiteDatabase(path: temp.path("t.sqlite"))
        try db.execute("CREATE TABLE t(k TEXT PRIMARY KEY)")
        let insert = try db.prepare("INSERT INTO t VALUES (?)")
        #expect(throws: SQLiteError.self) {
            try db.transaction { () throws(SQLiteError) in
                try insert.run([.text("one")])
                try insert.run([.text("one")])  // primary key violation
            }
        }
        #expect(try db.scalarText("SELECT count(*) FROM t") == "0")
    }
}
