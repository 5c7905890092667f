import Testing

@testable import ImgwarmKit

/// PINRemoteImage's file names (docs/cache-formats.md, "PINRemoteImage"). The names were computed
/// outside the code under test, by Python, from the rules read in `PINRemoteImageManager.m`
/// (`cacheKeyForURL:processorKey:resume:`) and `PINDiskCache.m` (the default key encoder):
///
///     python3 -c 'import hashlib
///     enc = lambda k: "".join("%%%02X" % ord(c) if c in ".:/%" else c for c in k)
///     for k in KEYS:
///         print(hashlib.md5(k.encode()).hexdigest() if len(k.encode("utf-16-le")) // 2 > 200 else enc(k))'
@Suite struct PINCacheFileNameTests {
    static let vectors: [(key: String, name: String)] = [
        // PINCache's own test (`Tests/PINCacheTests.m`, testDiskCacheStringEncoding).
        ("http://www.test.de-<CoolStuff>?%", "http%3A%2F%2Fwww%2Etest%2Ede-<CoolStuff>?%25"),
        ("https://example.com/image.png", "https%3A%2F%2Fexample%2Ecom%2Fimage%2Epng"),
        (
            "https://cdn.example.com/a/b/c.jpg?w=300&h=200&fit=crop",
            "https%3A%2F%2Fcdn%2Eexample%2Ecom%2Fa%2Fb%2Fc%2Ejpg?w=300&h=200&fit=crop"
        ),
        // A percent-encoded key: its `%` is encoded again.
        (
            "https://example.com/img.webp?sig=abc%2Fdef%3D&t=1700000000",
            "https%3A%2F%2Fexample%2Ecom%2Fimg%2Ewebp?sig=abc%252Fdef%253D&t=1700000000"
        ),
        // Non-ASCII stays as it is.
        (
            "https://\u{4F8B}\u{3048}.jp/\u{753B}\u{50CF}/\u{732B}.png",
            "https%3A%2F%2F\u{4F8B}\u{3048}%2Ejp%2F\u{753B}\u{50CF}%2F\u{732B}%2Epng"
        ),
        // A processor's key: `-<processorKey>` after the URL.
        (
            "https://example.com/p.jpg-<PINRemoteImageProcessor_round_8>",
            "https%3A%2F%2Fexample%2Ecom%2Fp%2Ejpg-<PINRemoteImageProcessor_round_8>"
        ),
        // 200 UTF-16 units: still encoded; 201: the MD5 of the key.
        (
            "https://example.com/" + String(repeating: "a", count: 176) + ".png",
            "https%3A%2F%2Fexample%2Ecom%2F" + String(repeating: "a", count: 176) + "%2Epng"
        ),
        ("https://example.com/" + String(repeating: "a", count: 177) + ".png", "30814de45b462dc5201bf92c88be347b"),
        // 113 characters but 202 UTF-16 units (`NSString.length` counts an emoji twice): the MD5.
        (
            "https://example.com/" + String(repeating: "\u{1F600}", count: 89) + ".png",
            "b960857f88be3eb8911cc36222604715"
        ),
    ]

    @Test func namesMatchTheVectors() {
        for vector in Self.vectors {
            #expect(PINCacheFileName.forKey(vector.key) == vector.name, "\(vector.key)")
            #expect(PINRemoteImageFormat().fileName(forKey: vector.key) == vector.name)
        }
    }

    @Test func everyNameHasTheGuardsShapeAndOtherNamesDoNot() {
        for vector in Self.vectors {
            #expect(Self.isEntryName(vector.name), "\(vector.name)")
        }
        for other in ["", ".DS_Store", "a.png", "x%2", "x%G1", "http://x", "tmp%"] {
            #expect(!Self.isEntryName(other), "\(other)")
        }
    }

    static func isEntryName(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { PINRemoteImageFormat().isEntryName(bytes: $0) }
    }

    @Test func folderHasAFixedNameInTheCachesRoot() {
        let format = PINRemoteImageFormat()
        #expect(!format.hasNamespace)
        #expect(
            format.folder(cachesRoot: "/r", namespace: "default")
                == "/r/com.pinterest.PINDiskCache.PINRemoteImageManagerCache")
    }

    /// The size trim: least recently used (modification date) first, above 50 MiB, down to at
    /// most the limit; no age pass by default.
    @Test func cleanRulesAreTheByteLimitTrim() {
        let rules = PINRemoteImageFormat().cleanRules
        #expect(rules.expiry == .none)
        #expect(rules.trimDate == .modification)
        #expect(rules.measure == .allocated)
        #expect(rules.defaultMaxSize == 50 * 1024 * 1024)
        #expect(rules.trimThreshold(limit: 1000) == 1000)
        #expect(rules.trimGoal(limit: 1000) == 1001)
        #expect(PINRemoteImageFormat().trimsItselfToSizeLimit)
    }
}
