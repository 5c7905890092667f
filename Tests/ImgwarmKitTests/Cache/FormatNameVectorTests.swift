import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// Golden file names of the hashed formats (docs/cache-formats.md): Kingfisher 8 names a file by
/// the SHA-256 hex of the key's UTF-8 bytes, Kingfisher 7 by the MD5 hex, Nuke's `DataCache` by
/// the SHA-1 hex; none has an extension. The table was computed outside the code under test,
/// by Python's hashlib:
///
///     python3 -c 'import hashlib
///     for k in KEYS:
///         b = k.encode("utf-8")
///         print(hashlib.sha256(b).hexdigest(), hashlib.md5(b).hexdigest(), hashlib.sha1(b).hexdigest())'
///
/// with KEYS the `key`s below in order (`"x" * 4000` for the long one).
///
/// OkHttp (with Picasso and Coil 1.x over it) names an entry by the MD5 hex of
/// `HttpUrl.parse(key).toString()`. The `okHttp` column is what OkHttp 3.13.1's own `HttpUrl`
/// printed for each key (Debian's libokhttp-java, `Tests/Fixtures/okhttp/CacheProbe.java url`),
/// with the MD5 of that text by `printf %s "$printed" | md5sum`; nil where `HttpUrl.parse`
/// returned null (no scheme), so OkHttp has no name for the key and it is no OkHttp case.
@Suite struct FormatNameVectorTests {
    /// A key as OkHttp's `HttpUrl` prints it, and the MD5 hex of that text.
    struct OkHttpName {
        var printed: String
        var md5: String
    }

    struct Vector {
        var key: String
        var sha256: String
        var md5: String
        var sha1: String
        var okHttp: OkHttpName?
    }

    static let vectors: [Vector] = [
        Vector(
            key: "https://example.com/image.png",
            sha256: "99a19c215d3db74ae82c36fa43878f88c5e63830dc30799320b01a4f5aa341e4",
            md5: "d67540393d81c9e621cb2deed9d80816", sha1: "01a7df95a5de36522e05107d2baaaafcfec0f578",
            okHttp: OkHttpName(printed: "https://example.com/image.png", md5: "d67540393d81c9e621cb2deed9d80816")),
        // Nuke's own vector (DataCacheTests).
        Vector(
            key: "http://test.com",
            sha256: "8b408a0c7163fdfff06ced3e80d7d2b3acd9db900905c4783c28295b8c996165",
            md5: "1aa0d4413384d91bc0d452f03b505298", sha1: "50334ee0b51600df6397ce93ceed4728c37fee4e",
            okHttp: OkHttpName(printed: "http://test.com/", md5: "dbb720d788ffaeb0afb7572104072f4a")),
        Vector(
            key: "https://cdn.example.com/a/b/c.jpg?w=300&h=200&fit=crop",
            sha256: "c5770278779a1f4c7ce6f7273d23d8051845bdfc6298ee3023614d6c9622f89c",
            md5: "6a67c556cf5105b921f79317cfd0591a", sha1: "154acb9f515116c16d999005dd496738ff7e807e",
            okHttp: OkHttpName(
                printed: "https://cdn.example.com/a/b/c.jpg?w=300&h=200&fit=crop",
                md5: "6a67c556cf5105b921f79317cfd0591a")),
        Vector(
            key: "https://example.com/img.webp?sig=abc%2Fdef%3D&t=1700000000",
            sha256: "c4167a1dc1e3f8e92bd8dee8dc604890624603a5e578225a17b882e7fd4b9f0f",
            md5: "f3a51c60fbfadc29c1a467f5e7b7881f", sha1: "4f1b521e548ed7dcd7559bfa9a301d159a74f688",
            okHttp: OkHttpName(
                printed: "https://example.com/img.webp?sig=abc%2Fdef%3D&t=1700000000",
                md5: "f3a51c60fbfadc29c1a467f5e7b7881f")),
        Vector(
            key: "https://\u{4F8B}\u{3048}.jp/\u{753B}\u{50CF}/\u{732B}.png",  // https://例え.jp/画像/猫.png
            sha256: "8428a9bd63865f37e432149fed03cfb6a546ae7692b592260a29bc56cad763b2",
            md5: "710236013080f3a3fcdce6cc60528f66", sha1: "afecdaba39c974320d4a90505366029a07bc691d",
            okHttp: OkHttpName(
                printed: "https://xn--r8jz45g.jp/%E7%94%BB%E5%83%8F/%E7%8C%AB.png",
                md5: "b5985b8eab64e76ab7e45cd3a8858304")),
        Vector(
            key: "https://example.com/emoji/\u{1F600}.gif",
            sha256: "036ba8628b1e33132433c01ab1c065408a7719bf38e66c2dee22960d2f2fec8b",
            md5: "8501f31c813e1270328a2a2c26cb38ac", sha1: "678012a8debbfe2f689a2ec39f3624098093436e",
            okHttp: OkHttpName(
                printed: "https://example.com/emoji/%F0%9F%98%80.gif", md5: "2d54f74dcebb391d13ec9f41166454b4")),
        // Precomposed é and e + combining acute: equal Swift strings, different bytes, different names.
        Vector(
            key: "https://example.com/caf\u{E9}.jpg",
            sha256: "faf5f906c58d2f95dcd553959d784a44d4bd8a62718fc75ad3cbf9a17e3b86ff",
            md5: "84a475899789d00308893ca174dab033", sha1: "30ca8fe6cd4a4921ef18d4ba0e5238093dfc289d",
            okHttp: OkHttpName(printed: "https://example.com/caf%C3%A9.jpg", md5: "ccf086430951aa7286b34d98c5be9f86")),
        Vector(
            key: "https://example.com/cafe\u{301}.jpg",
            sha256: "9d25bae71dcf02d67908c1cd73be116b810a2ab94b3238c55654d2c987077049",
            md5: "256b7eb45a34fdc63acd2f683a105fd9", sha1: "766c011326365f3f785c226901f557ce54184750",
            okHttp: OkHttpName(printed: "https://example.com/cafe%CC%81.jpg", md5: "2c05a907f2c899ebd506e7e58747b1a4")),
        Vector(
            key: "avatar:user-42@2x",
            sha256: "0a4f01e0da3893ced38a5846545add391a536b496b1c1d79486a63994e929abe",
            md5: "0247293189da3a378bb051e8a086ea44", sha1: "bd3ac6f016328c3c9195a2ffc1cdc0c103d3143c"),
        Vector(
            key: " leading and trailing spaces ",
            sha256: "cbdbcc6022b0f7f1b146bdbb63c64f5b8ad45e9e42418de7bc71d11b998b7370",
            md5: "9f9f84e5d31223646b5dea60f5252cb2", sha1: "41d610a62077b0a4ee0b1329766ff0d587aa72fa"),
        Vector(
            key: "https://example.com/" + String(repeating: "x", count: 4000) + ".jpg",
            sha256: "2f35ee9ac95a2b9c84f7eb124b1cb78523fd3f244be6150f2735e98a597546ed",
            md5: "65cc096eda76ed9a3466770ea1352181", sha1: "2688fde69ae50dd475a2bcd701372de5deb17a88",
            okHttp: OkHttpName(
                printed: "https://example.com/" + String(repeating: "x", count: 4000) + ".jpg",
                md5: "65cc096eda76ed9a3466770ea1352181")),
        Vector(
            key: "a",
            sha256: "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",
            md5: "0cc175b9c0f1b6a831c399e269772661", sha1: "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8"),
    ]

    static func format(_ name: String) throws -> any KeyNamedFormat {
        try #require(CacheFormats.named(name) as? any KeyNamedFormat)
    }

    @Test(arguments: vectors.indices) func namesMatchTheTable(index: Int) throws {
        let vector = FormatNameVectorTests.vectors[index]
        #expect(try FormatNameVectorTests.format("kingfisher").fileName(forKey: vector.key) == vector.sha256)
        #expect(try FormatNameVectorTests.format("kingfisher7").fileName(forKey: vector.key) == vector.md5)
        #expect(try FormatNameVectorTests.format("nuke").fileName(forKey: vector.key) == vector.sha1)
    }

    /// The keys OkHttp has a name for: every case compares with the `okHttp` column.
    static let okHttpCases = vectors.indices.filter { vectors[$0].okHttp != nil }

    /// OkHttp's `Cache.key`, the body in `.1`, for each preset over OkHttp.
    @Test(arguments: okHttpCases) func okHttpNamesAreTheMD5OfWhatHttpUrlPrinted(index: Int) throws {
        let vector = FormatNameVectorTests.vectors[index]
        let okHttp = try #require(vector.okHttp)
        for name in ["okhttp", "picasso", "coil1"] {
            #expect(try FormatNameVectorTests.format(name).fileName(forKey: vector.key) == okHttp.md5 + ".1", "\(name)")
        }
    }

    /// The column's two halves agree (the MD5 as the kingfisher7 column checks it).
    @Test func theOkHttpColumnsMD5IsOfItsPrintedURL() {
        #expect(Self.okHttpCases.count == 9, "the keys with an http(s) scheme")
        for vector in Self.vectors {
            guard let okHttp = vector.okHttp else { continue }
            #expect(MD5.digest(Array(okHttp.printed.utf8)).hex == okHttp.md5, "\(vector.key)")
        }
    }

    /// The jar prints each key as the column records it (null for the three without one), so a
    /// value typed wrong cannot hide.
    @Test(.enabled(if: OkHttpJava.available, Comment(rawValue: OkHttpJava.missing)))
    func theJarPrintsTheOkHttpColumn() throws {
        let printed = try OkHttpJava.canonical(Self.vectors.map(\.key))
        #expect(printed.count == Self.vectors.count)
        for (vector, java) in zip(Self.vectors, printed) {
            #expect(java == vector.okHttp?.printed, "\(vector.key): OkHttp prints \(java ?? "null")")
        }
    }

    @Test func everyFormatIsRegisteredOnce() {
        #expect(
            CacheFormats.names == [
                "sdwebimage", "kingfisher", "kingfisher7", "nuke", "glide", "coil", "coil2", "fresco", "fresco3.6",
                "flutter", "okhttp", "picasso", "coil1", "pinremoteimage",
            ])
        #expect(CacheFormats.named("KINGFISHER") == nil, "names are matched lower-case by the CLI, not here")
    }

    @Test func foldersUnderACachesRoot() throws {
        let kingfisher = try CacheLocation(
            root: "/r", namespace: "avatars", format: FormatNameVectorTests.format("kingfisher"))
        #expect(kingfisher.folder == "/r/com.onevcat.Kingfisher.ImageCache.avatars")
        let kingfisher7 = try CacheLocation(
            root: "/r", namespace: "default", format: FormatNameVectorTests.format("kingfisher7"))
        #expect(kingfisher7.folder == "/r/com.onevcat.Kingfisher.ImageCache.default")
        let nuke = try CacheLocation(root: "/r", namespace: "default", format: FormatNameVectorTests.format("nuke"))
        #expect(nuke.folder == "/r/com.github.kean.Nuke.DataCache")
        #expect(
            try nuke.path(forKey: "http://test.com")
                == "/r/com.github.kean.Nuke.DataCache/50334ee0b51600df6397ce93ceed4728c37fee4e")

        let nukeFormat = try FormatNameVectorTests.format("nuke")
        #expect(throws: CacheLocationError.noNamespace("nuke")) {
            try CacheLocation.resolve(
                cacheDir: "/r", namespace: "avatars", diskCachePath: nil, environment: [:], format: nukeFormat)
        }
        let resolved = try CacheLocation.resolve(
            cacheDir: "/r", namespace: nil, diskCachePath: nil, environment: [:], format: nukeFormat)
        #expect(resolved.folder == "/r/com.github.kean.Nuke.DataCache")
    }

    @Test func entryNameShapes() throws {
        func accepts(_ format: any CacheFormat, _ name: String) -> Bool {
            Array(name.utf8).withUnsafeBufferPointer { format.isEntryName(bytes: $0) }
        }
        let kingfisher = try FormatNameVectorTests.format("kingfisher")
        let kingfisher7 = try FormatNameVectorTests.format("kingfisher7")
        let nuke = try FormatNameVectorTests.format("nuke")
        let vector = FormatNameVectorTests.vectors[0]
        #expect(accepts(kingfisher, vector.sha256) && !accepts(kingfisher, vector.md5))
        #expect(!accepts(kingfisher, vector.sha256.uppercased()), "lower-case hex only")
        #expect(!accepts(kingfisher, vector.md5 + ".png") && !accepts(kingfisher, vector.sha256 + ".png"))
        #expect(accepts(kingfisher7, vector.md5) && !accepts(kingfisher7, vector.md5 + ".png"))
        #expect(accepts(nuke, vector.sha1) && !accepts(nuke, vector.sha256))
        #expect(kingfisher.entryNameShape == "64 hex digits, no extension")
        #expect(kingfisher7.entryNameShape == "32 hex digits, no extension")
        #expect(nuke.entryNameShape == "40 hex digits, no extension")
    }
}
