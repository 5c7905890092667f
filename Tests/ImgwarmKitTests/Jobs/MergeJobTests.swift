import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// `MergeJob` (issue 52, docs/merge.md): per-machine shard caches, each stored as prefetch stores
/// (`CacheStore`), merged into one cache that `verify` finds every key in and the libraries'
/// reader models accept; a second merge changes nothing; conflicts go to the newer clock; hostile
/// and missing sources leave the destination as it was.
@Suite struct MergeJobTests {
    static let urls = (1...24).map { "https://cdn.example.com/merge/\($0).png" }

    /// The formats merge takes, from the registry.
    static let formats = CacheFormats.all.filter(MergeJob.isSupported).map(\.name)

    /// A response as a server sends it, fresh for a week (what OkHttp needs to serve it offline).
    static func response(_ url: String, receivedAt: Timestamp = .now()) -> CacheIndexResponse {
        var headers = ResponseHeaders()
        headers.head = ResponseHead(
            statusLine: "HTTP/1.1 200 OK", fields: ["Content-Type: image/png", "Cache-Control: max-age=604800"])
        return CacheIndexResponse(key: url, url: url, headers: headers, receivedAt: receivedAt, length: 1)
    }

    /// Stores `urls` in `location` as prefetch stores them, the index flushed.
    static func fill(_ location: CacheLocation, urls: [String], image: [UInt8], receivedAt: Timestamp = .now())
        throws
    {
        let store = try CacheStore(location: location)
        for url in urls {
            let response = Self.response(url, receivedAt: receivedAt)
            // flutter_cache_manager names each download anew; the others name an entry by its key.
            let name =
                try (store.index as? any EntryNamingIndex)?.storeName(for: "", response: response)
                ?? location.entryName(forKey: url, index: store.index)
            try image.withUnsafeBytes { try store.store($0, as: name, response: response) }
        }
        try store.flushIndex(lockTimeout: 5)
    }

    /// Three per-machine shards of `urls` (by `Shard`, as `--shard K/3` splits them), each in its
    /// own caches root `m1`, `m2`, `m3` of `temp`.
    static func shards(_ format: any CacheFormat, in temp: TemporaryFolder) throws -> [CacheLocation] {
        let image = [UInt8](try Fixtures.data("images/valid/gradient.png"))
        var locations: [CacheLocation] = []
        for k in 1...3 {
            let shard = try Shard(index: k, count: 3)
            let location = try CacheLocation(root: temp.path("m\(k)"), format: format)
            try fill(location, urls: urls.filter { shard.owns(MD5.digest(Array($0.utf8))) }, image: image)
            locations.append(location)
        }
        return locations
    }

    static func merge(_ sources: [CacheLocation], into destination: CacheLocation, dryRun: Bool = false) throws
        -> (MergeJob.Totals, [MergeJob.Event])
    {
        var configuration = MergeJob.Configuration()
        configuration.dryRun = dryRun
        configuration.lockTimeout = 5
        var events: [MergeJob.Event] = []
        let totals = try MergeJob(destination: destination, sources: sources, configuration: configuration).run {
            events.append($0)
        }
        return (totals, events)
    }

    static func verify(_ location: CacheLocation, urls: [String], in temp: TemporaryFolder) throws -> VerifyJob.Totals {
        let list = try temp.write("list-\(UUID().uuidString).txt", Data(urls.map { $0 + "\n" }.joined().utf8))
        return try VerifyJob(
            location: location, sources: [ListSource(path: list)], configuration: VerifyJob.Configuration()
        ).run(observe: { _ in }).totals
    }

    /// Every file below `folder` with its bytes and times (`.imgwarm` is beside it, not in it).
    static func snapshot(_ folder: String) throws -> [String: String] {
        var files: [String: String] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder))
        for case let name as String in enumerator {
            let info = try FileSystem.status(ofPath: folder + "/" + name, followingLinks: false)
            guard info.kind == .file else { continue }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            files[name] = "\(bytes.hashValue) \(info.modified.seconds).\(info.modified.nanoseconds)"
        }
        return files
    }

    // MARK: - Shards

    @Test(arguments: formats)
    func threeShardsMergeIntoTheCacheOneRunMakes(name: String) throws {
        let temp = try TemporaryFolder()
        let format = try #require(CacheFormats.named(name))
        let sources = try Self.shards(format, in: temp)
        let destination = try CacheLocation(root: temp.path("all"), format: format)
        #expect(!FileManager.default.fileExists(atPath: destination.folder))
        let (totals, events) = try Self.merge(sources, into: destination)
        #expect(totals.entries == Self.urls.count && totals.added == Self.urls.count, "\(totals)")
        #expect(totals.conflicts == 0 && totals.skipped == 0)
        let verified = try Self.verify(destination, urls: Self.urls, in: temp)
        #expect(verified.hits == Self.urls.count, "\(name): \(verified)")
        // Each file has the times its shard gave it (Kingfisher's expiry date among them).
        for event in events {
            let source = sources[event.source].folder + "/" + event.name
            let merged = destination.folder + "/" + event.name
            let before = try FileSystem.status(ofPath: source, followingLinks: false)
            let after = try FileSystem.status(ofPath: merged, followingLinks: false)
            #expect(after.modified == before.modified, "\(name): \(event.name)")
            #expect(after.accessed == before.accessed, "\(name): \(event.name)")
        }
        // A journal lists every entry, as the library's own reader reads it.
        if let journal = destination.makeIndex() as? JournalIndex {
            let header = journal.layout.header
            let model: DiskLruReaderModel = journal.layout.dialect == .javaSplit ? .glide : .coil
            let opened = try model.open(
                folder: destination.folder, appVersion: header.appVersion, valueCount: header.valueCount)
            #expect(opened.order.count == Self.urls.count, "\(name)")
            for key in opened.order {
                #expect(model.hits(key, in: opened, folder: destination.folder, valueCount: header.valueCount))
            }
        }
        // A second merge of the same sources changes nothing.
        let before = try Self.snapshot(destination.folder)
        let (again, _) = try Self.merge(sources, into: destination)
        #expect(again.unchanged == Self.urls.count && again.added == 0 && again.replaced == 0, "\(again)")
        #expect(try Self.snapshot(destination.folder) == before, "\(name)")
    }

    /// OkHttp's own `Cache` (Debian's OkHttp 3.13, run by the JDK) serves every merged entry
    /// without the network, and the conflict's winner, received last, is what it serves.
    @Test(.enabled(if: OkHttpJava.available, Comment(rawValue: OkHttpJava.missing)))
    func okHttpsOwnCacheServesTheMergedShards() throws {
        let temp = try TemporaryFolder()
        let format = try #require(CacheFormats.named("okhttp"))
        var sources = try Self.shards(format, in: temp)
        // A fourth machine fetched the first URL an hour earlier, another image.
        let earlier = try CacheLocation(root: temp.path("m4"), format: format)
        let other = [UInt8](try Fixtures.data("images/valid/anim.gif"))
        try Self.fill(earlier, urls: [Self.urls[0]], image: other, receivedAt: Timestamp.now().adding(seconds: -3600))
        sources.append(earlier)
        let destination = try CacheLocation(root: temp.path("all"), format: format)
        let (totals, _) = try Self.merge(sources, into: destination)
        #expect(totals.conflicts == 1 && totals.kept == 1, "\(totals)")
        let image = try Fixtures.data("images/valid/gradient.png")
        let md5 = MD5.digest([UInt8](image)).hex
        for (url, read) in zip(Self.urls, try OkHttpJava.read(folder: destination.folder, urls: Self.urls)) {
            #expect(read.forced == "200" && read.plain == "200", "\(url): \(read)")
            #expect(read.plainMD5 == md5, "\(url): \(read)")
        }
    }

    /// What docs/usage.md says of copying instead ("Running on many machines"): the shards'
    /// caches roots copied into one with their times (`cp -a`) give every hit for the plain-files
    /// formats only; the others keep one shard's journal or database, and lose the rest. A copy
    /// without the times (`cp -r`) makes every Kingfisher entry expired.
    @Test(arguments: CacheFormats.names)
    func aCopyCombinesOnlyThePlainFormats(name: String) throws {
        let plain: Set = ["sdwebimage", "kingfisher", "kingfisher7", "nuke", "pinremoteimage", "fresco", "fresco3.6"]
        let temp = try TemporaryFolder()
        let format = try #require(CacheFormats.named(name))
        _ = try Self.shards(format, in: temp)
        func copy(_ options: String, into root: String) throws -> Int {
            try FileManager.default.createDirectory(atPath: temp.path(root), withIntermediateDirectories: true)
            for k in 1...3 {
                let cp = try ProcessRunner.run(
                    URL(fileURLWithPath: "/bin/cp"), [options, temp.path("m\(k)") + "/.", temp.path(root)],
                    timeout: 60)
                #expect(cp.status == 0, "\(cp.stderrText)")
            }
            let location = try CacheLocation(root: temp.path(root), format: format)
            return try Self.verify(location, urls: Self.urls, in: temp).hits
        }
        let hits = try copy("-a", into: "copied")
        if plain.contains(name) {
            #expect(hits == Self.urls.count, "\(name): \(hits)")
        } else {
            #expect(hits < Self.urls.count, "\(name): \(hits)")
        }
        if format is any ExpiryStampingFormat { #expect(try copy("-r", into: "untimed") == 0, "\(name)") }
    }

    /// A dry run says what a merge would do and makes nothing, not even the destination.
    @Test func aDryRunChangesNothing() throws {
        let temp = try TemporaryFolder()
        let format = try #require(CacheFormats.named("glide"))
        let sources = try Self.shards(format, in: temp)
        let destination = try CacheLocation(root: temp.path("all"), format: format)
        let (totals, _) = try Self.merge(sources, into: destination, dryRun: true)
        #expect(totals.added == Self.urls.count)
        #expect(!FileManager.default.fileExists(atPath: temp.path("all")))
    }

    // MARK: - Conflicts

    /// Two sources hold the same key: the newer modification time wins, whichever comes first;
    /// Kingfisher's is its expiry date, so the later expiry wins.
    @Test(arguments: ["sdwebimage", "kingfisher", "nuke", "fresco", "glide", "pinremoteimage"])
    func theNewerCopyWins(name: String) throws {
        let format = try #require(CacheFormats.named(name))
        let old = [UInt8](try Fixtures.data("images/valid/gradient.png"))
        let new = [UInt8](try Fixtures.data("images/valid/anim.gif"))
        for order in [[0, 1], [1, 0]] {
            let temp = try TemporaryFolder()
            let url = Self.urls[0]
            var sources: [CacheLocation] = []
            for (k, image) in [old, new].enumerated() {
                let location = try CacheLocation(root: temp.path("m\(k)"), format: format)
                try Self.fill(location, urls: [url], image: image)
                let entry = try location.entryName(forKey: url, index: nil)
                // The old copy a day before the new one (both ahead: Kingfisher's expiry dates).
                let time = Timestamp(seconds: Timestamp.now().seconds + 3600 + 86_400 * Int64(k))
                let folder = try FileDescriptor.openFolder(location.folder)
                defer { folder.close() }
                try folder.setTimes(of: entry, FileTimes(access: .set(time), modification: .set(time)))
                sources.append(location)
            }
            let destination = try CacheLocation(root: temp.path("all"), format: format)
            let (totals, _) = try Self.merge(order.map { sources[$0] }, into: destination)
            #expect(totals.conflicts == 1, "\(name) \(order): \(totals)")
            #expect(totals.added == 1 && totals.replaced + totals.kept == 1)
            let entry = try destination.entryName(forKey: url, index: nil)
            let merged = [UInt8](try Data(contentsOf: URL(fileURLWithPath: destination.folder + "/" + entry)))
            #expect(merged == new, "\(name) \(order)")
            #expect(try Self.verify(destination, urls: [url], in: temp).hits == 1, "\(name) \(order)")
        }
    }

    /// OkHttp's clock is `OkHttp-Received-Millis`, not the files' times.
    @Test func okHttpsReceivedTimeDecides() throws {
        let temp = try TemporaryFolder()
        let format = try #require(CacheFormats.named("okhttp"))
        let url = Self.urls[0]
        let old = [UInt8](try Fixtures.data("images/valid/gradient.png"))
        let new = [UInt8](try Fixtures.data("images/valid/anim.gif"))
        let now = Timestamp.now()
        // The newer response is stored first (its files the older), the older one after.
        let newer = try CacheLocation(root: temp.path("m1"), format: format)
        try Self.fill(newer, urls: [url], image: new, receivedAt: now)
        let older = try CacheLocation(root: temp.path("m2"), format: format)
        try Self.fill(older, urls: [url], image: old, receivedAt: Timestamp(seconds: now.seconds - 3600))
        let destination = try CacheLocation(root: temp.path("all"), format: format)
        let (totals, _) = try Self.merge([older, newer], into: destination)
        #expect(totals.conflicts == 1 && totals.replaced == 1, "\(totals)")
        let entry = try destination.entryName(forKey: url, index: nil)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: destination.folder + "/" + entry))) == new)
        #expect(try Self.verify(destination, urls: [url], in: temp).hits == 1)
    }

    /// flutter's clock is its row's `touched`: the row used last wins, its file replaces the
    /// other's, which goes; the database keeps one row for the key, with the winner's values.
    @Test func flutterTouchedDecides() throws {
        let temp = try TemporaryFolder()
        let format = FlutterFormat()
        let url = Self.urls[0]
        let old = [UInt8](try Fixtures.data("images/valid/gradient.png"))
        let new = [UInt8](try Fixtures.data("images/valid/anim.gif"))
        var sources: [CacheLocation] = []
        for (k, image) in [new, old].enumerated() {
            let location = try CacheLocation(root: temp.path("m\(k)"), format: format)
            try Self.fill(location, urls: [url], image: image)
            // The new copy was used an hour after the old one.
            let db = try FlutterDatabase(path: format.databasePath(forFolder: location.folder), create: false)
            let row = try #require(try db.row(forKey: url))
            try db.touch(id: row.id, now: 1_800_000_000_000 - 3_600_000 * Int64(k))
            sources.append(location)
        }
        let destination = try CacheLocation(root: temp.path("all"), format: format)
        let (totals, events) = try Self.merge([sources[1], sources[0]], into: destination)
        #expect(totals.conflicts == 1 && totals.replaced == 1, "\(totals)")
        let db = try FlutterDatabase(path: format.databasePath(forFolder: destination.folder), create: false)
        let rows = try db.allRows()
        #expect(rows.count == 1 && rows.first?.touched == 1_800_000_000_000, "\(rows)")
        let name = try #require(rows.first?.relativePath)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: destination.folder + "/" + name))) == new)
        // The loser's file went with its row.
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.folder) == [name], "\(events)")
        #expect(try Self.verify(destination, urls: [url], in: temp).hits == 1)
        let (again, _) = try Self.merge([sources[1], sources[0]], into: destination)
        #expect(again.unchanged == 1 && again.kept == 1 && again.conflicts == 1, "\(again)")
    }

    // MARK: - State

    /// The records of the entries merged come with them; the blacklists join, the latest failure
    /// winning; a password's digest of another database is left out, never in clear; a second
    /// merge writes nothing.
    @Test func theStateDatabasesMerge() throws {
        let temp = try TemporaryFolder()
        let format = CacheFormats.standard
        let sources = try Self.shards(format, in: temp)
        let secret = "https://user:hunter2@cdn.example.com/private.png"
        for (k, source) in sources.enumerated() {
            let state = try StateStore(path: StateStore.defaultPath(for: source), busyTimeout: 5)
            for url in Self.urls {
                let name = try source.entryName(forKey: url, index: nil)
                guard FileManager.default.fileExists(atPath: source.folder + "/" + name) else { continue }
                try state.recordStored(
                    StateStore.Record(
                        key: url, fileName: name, size: 1, format: "png", width: 1, height: 1, etag: "\"m\(k)\"",
                        lastModified: nil, fetchedAt: 1_700_000_000, validatedAt: 1_700_000_000))
            }
            // Every machine failed on the same URL, the third last.
            try state.blacklist(
                StateStore.BlacklistEntry(
                    url: "https://cdn.example.com/gone.png", failedAt: 1_700_000_000 + Double(k), errorClass: "http",
                    message: "404 on m\(k + 1)", httpStatus: 404, attempts: 1))
            try state.blacklist(
                StateStore.BlacklistEntry(
                    url: secret, failedAt: 1_700_000_000, errorClass: "http", message: "401", httpStatus: 401,
                    attempts: 1))
        }
        let destination = try CacheLocation(root: temp.path("all"), format: format)
        let (totals, _) = try Self.merge(sources, into: destination)
        #expect(totals.stateRecords == Self.urls.count, "\(totals)")
        #expect(totals.blacklisted == 1 && totals.stateSkipped == 3, "\(totals)")
        let path = StateStore.defaultPath(for: destination)
        let state = try #require(try StateStore.openExisting(path: path))
        for url in Self.urls { #expect(try state.record(forKey: url)?.etag?.hasPrefix("\"m") == true) }
        let blacklist = try state.blacklistEntries()
        #expect(blacklist.map(\.message) == ["404 on m3"], "\(blacklist)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data("hunter2".utf8)) == nil)
        let (again, _) = try Self.merge(sources, into: destination)
        #expect(again.stateRecords == 0 && again.blacklisted == 0, "\(again)")
    }

    // MARK: - Failures

    /// A source whose journal is a FIFO is one imgwarm does not read (docs/hardening.md): the
    /// merge stops before anything is made, and never waits on it.
    @Test func aSourceWhoseJournalIsAFIFOChangesNothing() throws {
        let temp = try TemporaryFolder()
        let glide = try #require(CacheFormats.named("glide"))
        let sources = try Self.shards(glide, in: temp)
        try FileManager.default.removeItem(atPath: sources[2].folder + "/journal")
        #expect(mkfifo(sources[2].folder + "/journal", 0o644) == 0)
        let destination = try CacheLocation(root: temp.path("all"), format: glide)
        do {
            _ = try Self.merge(sources, into: destination)
            Issue.record("a FIFO journal was read")
        } catch {
            guard case .unreadableSource(_, let why) = error as? MergeJob.Error else {
                Issue.record("\(error)")
                return
            }
            #expect(why.contains("is a FIFO"), "\(why)")
        }
        #expect(!FileManager.default.fileExists(atPath: temp.path("all")))
    }

    /// A missing source, one of another format, the destination itself: nothing is created.
    @Test func aSourceThatIsNoCacheOfTheFormatChangesNothing() throws {
        let temp = try TemporaryFolder()
        let glide = try #require(CacheFormats.named("glide"))
        let sources = try Self.shards(glide, in: temp)
        let destination = try CacheLocation(root: temp.path("all"), format: glide)
        let missing = try CacheLocation(root: temp.path("nowhere"), format: glide)
        #expect(throws: MergeJob.Error.self) { try Self.merge(sources + [missing], into: destination) }
        // An SDWebImage folder given as Glide's.
        let other = CacheLocation(folder: temp.path("sd"), format: glide)
        try Self.fill(
            CacheLocation(folder: other.folder), urls: [Self.urls[0]],
            image: [UInt8](try Fixtures.data("images/valid/gradient.png")))
        do {
            _ = try Self.merge(sources + [other], into: destination)
            Issue.record("a folder of another format was merged")
        } catch {
            guard case .otherFormat = error as? MergeJob.Error else {
                Issue.record("\(error)")
                return
            }
        }
        #expect(!FileManager.default.fileExists(atPath: temp.path("all")))
        #expect(throws: MergeJob.Error.self) { try Self.merge([sources[0]], into: sources[0]) }
        // The destination through a link to it.
        try FileManager.default.createSymbolicLink(atPath: temp.path("link"), withDestinationPath: sources[0].folder)
        #expect(throws: MergeJob.Error.self) {
            try Self.merge([CacheLocation(folder: temp.path("link"), format: glide)], into: sources[0])
        }
    }

    /// Hostile source entries (a link out of the folder, a FIFO, a journal key that climbs out)
    /// are skipped and never opened; the rest is merged.
    @Test func hostileEntriesAreSkipped() throws {
        let temp = try TemporaryFolder()
        let glide = try #require(CacheFormats.named("glide"))
        let sources = try Self.shards(glide, in: temp)
        let outside = try temp.write("outside/secret.0", Data("secret".utf8))
        let hex = String(repeating: "a", count: 64)
        let fifo = String(repeating: "b", count: 64)
        try FileManager.default.createSymbolicLink(
            atPath: sources[0].folder + "/\(hex).0", withDestinationPath: outside)
        #expect(mkfifo(sources[0].folder + "/\(fifo).0", 0o644) == 0)
        let journal = sources[0].folder + "/journal"
        let lines = "CLEAN \(hex) 6\nCLEAN \(fifo) 6\nCLEAN ../../outside/secret 6\n"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
        handle.seekToEndOfFile()
        handle.write(Data(lines.utf8))
        try handle.close()
        let destination = try CacheLocation(root: temp.path("all"), format: glide)
        let (totals, events) = try Self.merge(sources, into: destination)
        #expect(totals.skipped == 3, "\(events.filter { $0.outcome == .skipped })")
        #expect(totals.added == Self.urls.count)
        #expect(!FileManager.default.fileExists(atPath: destination.folder + "/\(hex).0"))
        #expect(!FileManager.default.fileExists(atPath: destination.folder + "/\(fifo).0"))
        #expect(try Self.verify(destination, urls: Self.urls, in: temp).hits == Self.urls.count)
    }

    /// A merge that stops midway (here: a folder stands where one entry goes, and the store
    /// fails) leaves a cache the library reads: every entry its journal lists is whole.
    @Test func aStoppedMergeLeavesWholeEntries() throws {
        let temp = try TemporaryFolder()
        let glide = try #require(CacheFormats.named("glide"))
        let sources = try Self.shards(glide, in: temp)
        let destination = try CacheLocation(root: temp.path("all"), format: glide)
        // The 5th entry of the second source cannot be written.
        let source = try #require(sources[1].makeIndex())
        try source.load()
        let blocked = source.listedNames[4]
        try FileManager.default.createDirectory(
            atPath: destination.folder + "/" + blocked + "/x", withIntermediateDirectories: true)
        #expect(throws: MergeJob.Error.self) { try Self.merge(sources, into: destination) }
        let opened = try DiskLruReaderModel.glide.open(folder: destination.folder, appVersion: 1, valueCount: 1)
        #expect(opened.order.count == sources[0].makeIndexCount + 4, "\(opened.order.count)")
        for key in opened.order {
            #expect(DiskLruReaderModel.glide.hits(key, in: opened, folder: destination.folder, valueCount: 1))
        }
    }
}

extension CacheLocation {
    /// The entries the folder's index lists.
    fileprivate var makeIndexCount: Int {
        guard let index = makeIndex() else { return 0 }
        try? index.load()
        return index.listedNames.count
    }
}
