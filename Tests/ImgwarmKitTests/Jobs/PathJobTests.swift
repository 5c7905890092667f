import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// `PathJob` and the one key → entry name (`CacheLocation.entryName(forKey:index:)`) without the
/// binary: a key names its file, except where the index names the entries (flutter), where a
/// listed key gets its row's file and another key a typed reason.
@Suite struct PathJobTests {
    @Test func aKeyNamesItsFile() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        let key = "https://example.com/a.png"
        let job = try PathJob(location: location)
        #expect(job.name(for: key) == .name(SDFileName.forKey(key)))
        #expect(try location.path(forKey: key) == location.folder + "/" + SDFileName.forKey(key))
        #expect(!FileManager.default.fileExists(atPath: location.folder), "naming creates nothing")
    }

    @Test func keyFiltersAreAppliedAndAnEmptyKeyIsNoName() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"), format: NukeFormat())
        let job = try PathJob(location: location, keyFilters: KeyFilterChain(specs: ["strip-query"]))
        #expect(
            job.name(for: "https://example.com/a.png?token=1") == .name(Digest.sha1Hex("https://example.com/a.png")))
        #expect(
            try PathJob(location: location, keyFilters: KeyFilterChain(specs: ["regex:/^.*$//"])).name(for: "x")
                == .emptyKey)
    }

    @Test func flutterNamesTheRowsFileOrSaysWhyNot() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("caches/libCachedImageData"), format: FlutterFormat())
        let (listed, unlisted) = ("https://example.com/a.png", "https://example.com/b.png")
        let library = FlutterFormat().library
        // Without its database read, the format names no file: the public path says why.
        #expect(throws: UnnamedEntry.indexNotRead(library: library)) { try location.path(forKey: listed) }
        #expect(try PathJob(location: location).name(for: listed) == .unnamed(.notListed(library: library)))

        // A stored entry: the index gives it a new name and lists it in its row.
        let name = try {
            let store = try CacheStore(location: location)
            let response = CacheIndexResponse(
                key: listed, url: listed, headers: ResponseHeaders(contentType: "image/png"), receivedAt: .now(),
                length: 3)
            let name = try #require(store.index as? any EntryNamingIndex).storeName(for: "", response: response)
            try [UInt8]([1, 2, 3]).withUnsafeBytes { try store.store($0, as: name, response: response) }
            try store.flushIndex(lockTimeout: 5)
            return name
        }()

        let job = try PathJob(location: location)
        #expect(job.name(for: listed) == .name(name))
        #expect(job.name(for: unlisted) == .unnamed(.notListed(library: library)))
        let index = try #require(location.makeIndex())
        try index.load()
        #expect(try location.path(forKey: listed, index: index) == location.folder + "/" + name)

        // A row that names a path outside the folder names no file: nothing opens it.
        _ = try FlutterReaderModel.sqlite3(
            FlutterFormat().databasePath(forFolder: location.folder),
            "UPDATE cacheObject SET relativePath = '../x' WHERE key = '\(listed)'")
        #expect(try PathJob(location: location).name(for: listed) == .unnamed(.notAFileOfTheFolder(library: library)))
    }
}
