import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// The rules of several formats in one prefetch (`FormatFanOut`), over the registry: which
/// format is filled first, which stores from the image's bytes alone, which two may share one
/// file (docs/usage.md, "Several formats").
@Suite struct FormatFanOutTests {
    static func format(_ name: String) throws -> any CacheFormat { try #require(CacheFormats.named(name)) }

    /// The formats that send their own requests go first; the others keep the order given.
    @Test func theFormatsThatKeepWholeResponsesAreFilledFirst() throws {
        let locations = try ["kingfisher", "glide", "okhttp", "flutter", "picasso"].map {
            CacheLocation(folder: "/c/\($0)", format: try Self.format($0))
        }
        #expect(
            FormatFanOut.fillingOrder(locations).map(\.format.name) == [
                "okhttp", "picasso", "kingfisher", "glide", "flutter",
            ])
    }

    /// Every format stores from the bytes alone but those that keep the response (OkHttp's
    /// `<key>.0`) or name and time their entry from it (flutter_cache_manager's row).
    @Test func whoStoresFromTheBytesAlone() throws {
        for format in CacheFormats.all {
            let needsResponse = ["okhttp", "picasso", "coil1", "flutter"].contains(format.name)
            #expect(
                FormatFanOut.storesFromBytesAlone(CacheLocation(folder: "/c/x", format: format)) == !needsResponse,
                "\(format.name)")
        }
    }

    /// A hard link has one set of times: two formats share a file only when neither stamps a time
    /// on a stored file and a hit of one moves no time the other reads (docs/usage.md).
    @Test func whoMayShareAFile() throws {
        let accessOnHit = ["sdwebimage", "nuke"]
        let modificationOnHit = ["pinremoteimage", "fresco", "fresco3.6"]
        let noTime = ["glide", "coil", "coil2", "flutter"]  // their index decides
        let never = ["kingfisher", "kingfisher7", "okhttp", "picasso", "coil1"]
        func group(_ name: String) -> Int? {
            [accessOnHit, modificationOnHit, noTime].firstIndex { $0.contains(name) }
        }
        for one in CacheFormats.all {
            for other in CacheFormats.all {
                let expected: Bool
                switch (group(one.name), group(other.name)) {
                case (let a?, let b?): expected = a == b || a == 2 || b == 2
                default: expected = false
                }
                #expect(FormatFanOut.mayShareFiles(one, other) == expected, "\(one.name), \(other.name)")
            }
        }
        #expect(!FormatFanOut.mayShareFiles(try Self.format("sdwebimage"), try Self.format("fresco")))
        #expect(FormatFanOut.mayShareFiles(try Self.format("sdwebimage"), try Self.format("glide")))
        let named = Set(accessOnHit + modificationOnHit + noTime + never)
        #expect(named == Set(CacheFormats.all.map(\.name)), "every registered format is in the table")
    }
}
