import Testing

@testable import ImgwarmKit

/// PINRemoteImage's file names (docs/cache-formats.md, "PINRemoteImage"). The names were computed
/// outside the code under test, by Python, from the rules read in `PINRemoteImageManager.m`
/// (`cacheKeyForURL:processorKey:resume:`) and `PINDiskCache.m` (`defaultKeyEncoder`: Foundation's
/// `stringByAddingPercentEncodingWithAllowedCharacters:` with the inverted set of `.:/%`, which on
/// Apple's systems keeps a UTF-8 byte only when it is ASCII and allowed):
///
///     python3 -c 'import hashlib
///     enc = lambda k: "".join("%%%02X" % b if b >= 0x80 or chr(b) in ".:/%" else chr(b) for b in k.encode())
///     for k in KEYS:
///         print(hashlib.md5(k.encode()).hexdigest() if len(k.encode("utf-16-le")) // 2 > 200 else enc(k))'
@Suite struct PINCacheFileNameTests {
    static let cat = "\u{732B}"
    static let catEncoded = "%E7%8C%AB"

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
        // Non-ASCII: every UTF-8 byte percent-encoded (issue 47). CJK, 3 bytes a character:
        (
            "https://\u{4F8B}\u{3048}.jp/\u{753B}\u{50CF}/\u{732B}.png",
            "https%3A%2F%2F%E4%BE%8B%E3%81%88%2Ejp%2F%E7%94%BB%E5%83%8F%2F%E7%8C%AB%2Epng"
        ),
        // Accents, precomposed (2 bytes each) and decomposed (no normalization: another name).
        (
            "https://example.com/caf\u{E9}/cr\u{E8}me-br\u{FB}l\u{E9}e.jpg",
            "https%3A%2F%2Fexample%2Ecom%2Fcaf%C3%A9%2Fcr%C3%A8me-br%C3%BBl%C3%A9e%2Ejpg"
        ),
        ("https://example.com/cafe\u{301}.jpg", "https%3A%2F%2Fexample%2Ecom%2Fcafe%CC%81%2Ejpg"),
        // An emoji: 4 bytes, 2 UTF-16 units.
        ("https://example.com/\u{1F600}.png", "https%3A%2F%2Fexample%2Ecom%2F%F0%9F%98%80%2Epng"),
        // Mixed: spaces and `?`, `&`, `=` stay; the `%` of an encoded key is encoded again.
        (
            "https://example.com/Z\u{FC}rich \u{6771}\u{4EAC} \u{1F600}?q=\u{FC}&x=%C3%BC",
            "https%3A%2F%2Fexample%2Ecom%2FZ%C3%BCrich %E6%9D%B1%E4%BA%AC %F0%9F%98%80?q=%C3%BC&x=%25C3%25BC"
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
        // Near the file system's 255 bytes: 24 CJK characters make a name of 252 bytes, 75 dots 255.
        (
            "https://example.com/" + String(repeating: cat, count: 24) + ".png",
            "https%3A%2F%2Fexample%2Ecom%2F" + String(repeating: catEncoded, count: 24) + "%2Epng"
        ),
        (
            "https://example.com/" + String(repeating: ".", count: 75),
            "https%3A%2F%2Fexample%2Ecom%2F" + String(repeating: "%2E", count: 75)
        ),
        // 201 UTF-16 units of mostly CJK: the MD5, whatever its encoding's length.
        ("https://example.com/" + String(repeating: cat, count: 177) + ".png", "97939230c88abcd5d13a02efbe8b1d8a"),
    ]

    /// Keys of at most 200 UTF-16 units whose encoded name passes 255 bytes (261 and 258), which
    /// PINDiskCache cannot write: refused before any download, with the name's length.
    static let tooLong: [(key: String, bytes: Int)] = [
        ("https://example.com/" + String(repeating: cat, count: 25) + ".png", 261),
        ("https://example.com/" + String(repeating: ".", count: 76), 258),
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
        // A raw non-ASCII byte is no name the encoder makes (imgwarm wrote such names before
        // issue 47; PINDiskCache can neither read nor delete them), nor is one over 255 bytes.
        let raw = "https%3A%2F%2Fexample%2Ecom%2F\u{732B}%2Epng"
        for other in [
            "", ".DS_Store", "a.png", "x%2", "x%G1", "http://x", "tmp%", raw, String(repeating: "a", count: 256),
        ] {
            #expect(!Self.isEntryName(other), "\(other)")
        }
    }

    @Test func keysWhoseNamePassesTheFileSystemsLimitAreRefused() throws {
        let format = PINRemoteImageFormat()
        for vector in Self.vectors {
            #expect(format.refusal(forKey: vector.key) == nil, "\(vector.key)")
        }
        for (key, bytes) in Self.tooLong {
            #expect(key.utf16.count <= PINCacheFileName.maxKeyLength)
            #expect(PINCacheFileName.forKey(key).utf8.count == bytes)
            let refusal = try #require(format.refusal(forKey: key))
            #expect(refusal.contains("is \(bytes) bytes, more than the 255 a file name may have"), "\(refusal)")
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
