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
    /// on a stored file and a hit sets the same times in both (docs/cache-formats.md).
    @Test func whoMayShareAFile() throws {
        let classes: [[String]] = [
            ["sdwebimage", "nuke"],  // a hit sets the access time
            ["pinremoteimage", "fresco", "fresco3.6"],  // a hit sets the modification time
            ["glide", "coil", "coil2", "flutter"],  // no file time is read
        ]
        let never = ["kingfisher", "kingfisher7", "okhttp", "picasso", "coil1"]
        for one in CacheFormats.all {
            for other in CacheFormats.all {
                let together = classes.contains { $0.contains(one.name) && $0.contains(other.name) }
                let expected = together && !never.contains(one.name)
                #expect(FormatFanOut.mayShareFiles(one, other) == expected, "\(one.name), \(other.name)")
            }
        }
        let named = Set(classes.joined()).union(never)
        #expect(named == Set(CacheFormats.all.map(\.name)), "every registered format is in the table")
    }
}
