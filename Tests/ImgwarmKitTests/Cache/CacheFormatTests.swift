import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// The cache-format seam (issue 22): SDWebImage through it is what it was, and a format the
/// engine has never heard of flows through the folder, the names, the clean guard and a dry run
/// without any other change.
@Suite struct CacheFormatTests {
    /// A made-up format: entries `K-<32 hex>`, folder `<root>/test-cache.<namespace>`.
    struct KeyedFormat: KeyNamedFormat {
        var name: String { "keyed" }
        var platforms: Set<AppContainer.Platform> { [.ios] }
        var library: String { "a test library" }
        var entryNameShape: String { "K- and 32 hex digits" }
        var cleanRules: CleanRules { CleanRules(expiry: .age, trimDate: nil, measure: .allocated) }
        func folder(cachesRoot: String, namespace: String) -> String { cachesRoot + "/test-cache." + namespace }
        func fileName(forKey key: String) -> String { "K-" + SDFileName.hash(of: key).hex }
        func isEntryName(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            bytes.count == 34 && bytes[0] == UInt8(ascii: "K") && bytes[1] == UInt8(ascii: "-")
        }
    }

    @Test func sdWebImageIsTheDefaultAndNamesAsBefore() throws {
        let format = try #require(CacheFormats.named("sdwebimage") as? any KeyNamedFormat)
        #expect(CacheFormats.all.first?.name == "sdwebimage", "the first format is the default")
        let text = String(decoding: try Fixtures.data("vectors/sd-filenames.tsv"), as: UTF8.self)
        var checked = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2 else { continue }
            #expect(format.fileName(forKey: String(fields[0])) == String(fields[1]))
            checked += 1
        }
        #expect(checked >= 20)
        let location = try CacheLocation(root: "/r", namespace: "ns")
        #expect(location.folder == "/r/com.hackemist.SDImageCache/ns")
        #expect(location.format.name == "sdwebimage")
        let name = "0123456789abcdef0123456789abcdef.png"
        #expect(Array(name.utf8).withUnsafeBufferPointer { format.isEntryName(bytes: $0) })
        #expect(!Array("notes.txt".utf8).withUnsafeBufferPointer { format.isEntryName(bytes: $0) })
    }

    @Test func anotherFormatFlowsThroughTheEngine() throws {
        let temp = try TemporaryFolder()
        let location = try CacheLocation(root: temp.path, namespace: "n", format: KeyedFormat())
        #expect(location.folder == temp.path + "/test-cache.n")
        let key = "https://a.example/x.png"
        #expect(try location.path(forKey: key) == location.folder + "/K-" + SDFileName.hash(of: key).hex)
        #expect(location != CacheLocation(folder: location.folder), "a location is its folder and its format")

        // The clean guard is the format's: an SDWebImage name is foreign here, a K- name is not.
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        // An image: a prefetch takes a file the app would not decode for a miss (HitCheck).
        try Fixtures.data("images/valid/gradient.png").write(to: URL(fileURLWithPath: try location.path(forKey: key)))
        try Data([1]).write(to: URL(fileURLWithPath: location.folder + "/0123456789abcdef0123456789abcdef.png"))
        let survey = try DiskCache(location: location).survey(policy: DiskCache.CleanPolicy(), now: Timestamp.now())
        #expect(survey.foreignCount == 1)
        #expect(survey.foreignNames == ["0123456789abcdef0123456789abcdef.png"])

        // A dry run names what it would fetch, and finds the hit, in this format.
        let list = try temp.write("list.txt", Data((key + "\nhttps://a.example/y.png\n").utf8))
        var configuration = PrefetchJob.Configuration()
        configuration.dryRun = true
        configuration.spoolFolder = temp.path
        let job = PrefetchJob(location: location, sources: [ListSource(path: list)], configuration: configuration)
        let observer = PrefetchJobTests.Collector()
        job.observer = observer
        let summary = try job.run()
        #expect(summary.totals.cached == 1 && summary.totals.wouldFetch == 1)
        let wouldFetch = try #require(observer.results.first { $0.outcome == .wouldFetch })
        #expect(wouldFetch.fileName == "K-" + SDFileName.hash(of: "https://a.example/y.png").hex)
    }
}
