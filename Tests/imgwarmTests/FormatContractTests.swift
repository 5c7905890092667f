import Foundation
import ImgwarmKit
import ImgwarmSystem
import TestSupport
import Testing

/// What every format in `CacheFormats.all` promises, checked on each with the real binary and
/// the loopback server, so that a new format gets these checks by being registered (issue 32):
///
/// * the name `CacheLocation.entryName(forKey:index:)` gives a key passes the format's own clean
///   guard (`isEntryName`, on what stands in the folder: a name's first component);
/// * a stored file has the times `timesOnStore` gives it, and its reader (`read`) takes it for a hit;
/// * a clean dry run of a fresh prefetch would remove nothing;
/// * verify after prefetch finds every key a hit.
@Suite struct FormatContractTests {
    static let paths = ["/img/photo.jpg", "/img/gradient.png"]

    /// A fresh prefetch of `paths` into `format`'s folder under a caches root, with the times
    /// around it.
    struct Prefetched {
        let h: PrefetchHarness
        let root: String
        let location: CacheLocation
        let urls: [String]
        let list: String
        let before: Timestamp
        let after: Timestamp
        var options: [String] { ["--cache-format", location.format.name, "--cache-dir", root] }

        init(_ format: any CacheFormat) throws {
            h = try PrefetchHarness()
            root = h.temp.path("caches")
            location = try CacheLocation(root: root, format: format)
            urls = FormatContractTests.paths.map(h.url)
            list = try h.temp.write("list.txt", Data((urls.joined(separator: "\n") + "\n").utf8))
            before = Timestamp.now()
            let run = try h.run(["prefetch", "--cache-format", format.name, "--cache-dir", root, list])
            after = Timestamp.now()
            #expect(run.status == 0, "\(format.name): \(run.stderr)")
        }

        /// The folder's index as the library reads it; nil for a plain-files cache.
        func index() throws -> (any CacheIndex)? {
            let index = location.makeIndex()
            try index?.load()
            return index
        }
    }

    @Test(arguments: CacheFormats.all.map(\.name))
    func aKeysNamePassesItsOwnGuard(name: String) throws {
        let format = try #require(CacheFormats.named(name))
        let s = try Prefetched(format)
        let index = try s.index()
        for url in s.urls {
            let entry = try s.location.entryName(forKey: url, index: index)
            #expect(FileManager.default.fileExists(atPath: try s.location.path(forKey: url, index: index)), "\(name)")
            let inFolder = String(entry.prefix { $0 != "/" })
            let passes = Array(inFolder.utf8).withUnsafeBufferPointer { format.isEntryName(bytes: $0) }
            #expect(passes, "\(name): \(inFolder) is not \(format.entryNameShape)")
        }
    }

    @Test(arguments: CacheFormats.all.map(\.name))
    func aStoredFileHasTheTimesItsReaderReads(name: String) throws {
        let format = try #require(CacheFormats.named(name))
        let s = try Prefetched(format)
        let index = try s.index()
        // File times come from the kernel's coarse clock: a second of slack either side.
        let earliest = Timestamp(seconds: s.before.seconds - 1)
        let latest = Timestamp(seconds: s.after.seconds + 1)
        func expect(_ time: Timestamp, _ change: (Timestamp) -> FileTimes.Change, _ what: String) {
            switch (change(s.before), change(s.after)) {
            case (.set(let low), .set(let high)):
                #expect(time >= Timestamp(seconds: low.seconds - 1) && time <= high, "\(name): \(what) \(time)")
            default:
                // Left as writing gives it, or set to now: the time of the store.
                #expect(time >= earliest && time <= latest, "\(name): \(what) \(time)")
            }
        }
        for (url, path) in zip(s.urls, FormatContractTests.paths) {
            let file = try s.location.path(forKey: url, index: index)
            let info = try FileSystem.status(ofPath: file, followingLinks: false)
            let body = try #require(s.h.routes.valid[String(path.split(separator: "/").last!)])
            #expect(format.read(info, now: .now()) == .hit(size: body.count), "\(name)")
            expect(info.modified, { format.timesOnStore(now: $0).modification }, "modification")
            expect(info.accessed, { format.timesOnStore(now: $0).access }, "access")
        }
    }

    @Test(arguments: CacheFormats.all.map(\.name))
    func aCleanDryRunOfAFreshPrefetchRemovesNothing(name: String) throws {
        let s = try Prefetched(try #require(CacheFormats.named(name)))
        let dry = try s.h.run(["clean", "--dry-run", "--report", "-"] + s.options)
        #expect(dry.status == 0, "\(name): \(dry.stderr)")
        #expect((try dry.report["removed"] as? [Any])?.isEmpty == true, "\(name): \(dry.result.stdoutText)")
        #expect((try dry.totals["removedFiles"] as? Int) == 0, "\(name)")
    }

    @Test(arguments: CacheFormats.all.map(\.name))
    func verifyAfterPrefetchIsAllHits(name: String) throws {
        let s = try Prefetched(try #require(CacheFormats.named(name)))
        let verify = try s.h.run(["verify", "--json"] + s.options + [s.list])
        #expect(verify.status == 0, "\(name): \(verify.stderr)")
        let totals = try verify.report["totals"] as? [String: Any]
        #expect(totals?["hits"] as? Int == s.urls.count, "\(name): \(verify.result.stdoutText)")
        #expect(totals?["misses"] as? Int == 0, "\(name)")
    }
}
