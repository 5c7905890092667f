import Testing

@testable import ImgwarmKit

/// The rows `FlutterIndex` keeps, found by key and by file name through its tables of positions.
@Suite struct FlutterIndexRowsTests {
    static func row(_ id: Int, key: String, name: String) -> FlutterIndex.Listed {
        FlutterIndex.Listed(
            FlutterDatabase.Row(
                id: Int64(id), url: "https://example.com/\(key)", key: key, relativePath: name, eTag: nil,
                validTill: Int64(id), touched: 0, length: nil))
    }

    @Test func findsEveryRowByKeyAndNameAcrossGrowths() {
        var rows = FlutterIndex.Rows()
        for i in 0..<5000 { rows.put(Self.row(i, key: "key-\(i)", name: "name-\(i).jpg")) }
        #expect(rows.all.count == 5000)
        for i in [0, 1, 15, 16, 17, 1023, 4999] {
            #expect(rows.position(ofKey: "key-\(i)").map { rows[$0].relativePath } == "name-\(i).jpg")
            #expect(rows.position(ofName: "name-\(i).jpg").map { rows[$0].key } == "key-\(i)")
        }
        #expect(rows.position(ofKey: "key-5000") == nil)
        #expect(rows.position(ofName: "key-1") == nil)
    }

    /// A row keeps its `length` column as read, NULL included.
    @Test func aRowKeepsItsLength() {
        for length: Int64? in [nil, 0, 5, -1, Int64.max] {
            let listed = FlutterIndex.Listed(
                FlutterDatabase.Row(
                    id: 1, url: "u", key: "k", relativePath: "n.jpg", eTag: nil, validTill: 0, touched: 0,
                    length: length))
            #expect(listed.length == length)
        }
    }

    @Test func aReplacedRowIsFoundByItsNewNameOnly() throws {
        var rows = FlutterIndex.Rows()
        for i in 0..<100 { rows.put(Self.row(i, key: "key-\(i)", name: "name-\(i).jpg")) }
        rows.put(Self.row(500, key: "key-7", name: "new-7.jpg"))
        #expect(rows.all.count == 100)
        #expect(rows.position(ofName: "name-7.jpg") == nil)
        let position = try #require(rows.position(ofName: "new-7.jpg"))
        #expect(rows[position].key == "key-7" && rows[position].id == 500)
        #expect(rows[key: "key-7"]?.relativePath == "new-7.jpg")
        // Many renames leave stale slots: growths drop them, every row stays found.
        for round in 0..<50 {
            for i in 0..<100 { rows.put(Self.row(i, key: "key-\(i)", name: "r\(round)-\(i).jpg")) }
        }
        #expect(rows.all.count == 100)
        for i in 0..<100 {
            #expect(rows.position(ofName: "r49-\(i).jpg") == rows.position(ofKey: "key-\(i)"))
            #expect(rows.position(ofName: "r48-\(i).jpg") == nil)
        }
    }

    @Test func twoRowsNamingOneFileFindTheLastWritten() {
        var rows = FlutterIndex.Rows()
        rows.put(Self.row(1, key: "a", name: "same.jpg"))
        rows.put(Self.row(2, key: "b", name: "same.jpg"))
        #expect(rows.position(ofName: "same.jpg").map { rows[$0].key } == "b")
    }
}
