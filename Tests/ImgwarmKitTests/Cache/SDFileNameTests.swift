import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

@Suite struct SDFileNameTests {
    /// Every vector of `Tests/Fixtures/vectors/sd-filenames.tsv` (copied from the product contract).
    @Test func sharedVectors() throws {
        let text = String(decoding: try Fixtures.data("vectors/sd-filenames.tsv"), as: UTF8.self)
        var checked = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false)
        where !line.hasPrefix("#") && !line.isEmpty {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            #expect(fields.count == 2, "malformed vector line: \(line)")
            guard fields.count == 2 else { continue }
            #expect(SDFileName.forKey(String(fields[0])) == String(fields[1]), "key: \(fields[0])")
            checked += 1
        }
        #expect(checked >= 20)
    }

    /// One vector per branch of the rule. Hashes come from Python's hashlib (an independent MD5);
    /// extensions are derived by hand from docs/cache-contract.md §2.
    @Test(arguments: [
        // MD5 stops at the first NUL; the key is not a URI (NUL) so the raw string gives "png".
        ("abc\u{0}def.png", "900150983cd24fb0d6963f7d28e17f72.png"),
        // Percent-decoded path: the space is before the dot, so the extension survives.
        ("http://example.com/photo%20one.jpg", "d9a5592ccad8d1bc8a200cb2f2cfab92.jpg"),
        // A decoded space met first while scanning back: no extension.
        ("http://example.com/a.b%20c", "883a767012e95eeede1f2f02bcbedfdc"),
        // Not a URI (raw space): the raw string's extension.
        ("my photo.png", "f492e9bbf9014eb1b4e289e4bf3c3f55.png"),
        ("a.b c", "f012c21873b1143491599bafb13f6d66"),
        // Not hierarchical (no "/" after the scheme): raw string fallback.
        ("urn:isbn:0451450523.pdf", "44940506fdc6f38b8ed480df61596d3a.pdf"),
        ("x:y", "dad3d5041507451a94b32e0574382419"),
        ("weird:scheme/a.png", "52674ae4b358d6fbb00afa4bc6d2f24d.png"),
        // Empty path: no extension, no fallback; host, port and query never count.
        ("http://example.com:8080", "06218cd262e8235a283cdb425cf5edfc"),
        ("http://cdn.example.png", "82613e0c28722fdb4ccb286811764d39"),
        ("http://cdn.example.png:8080?x=a.jpg", "06e93d96d11314a9a2a603d79d99c63c"),
        // Only one trailing slash is ignored.
        ("http://example.com/img.png//", "7a0e4e7221e65dfacdc9ef2f6363059a"),
        ("http://example.com/v1.2/", "98a4590134ad9685d18b60d48179da6d.2"),
        // ";" belongs to the path.
        ("http://example.com/a.png;v=1", "c14589b630ed36e5f75c9f9cd4d5f9f0.png;v=1"),
        // A bidi control (U+200F, decoded; U+202E, raw) met first: no extension.
        ("http://example.com/a.png%E2%80%8Fx", "d5b54ed80017608860fd125575bb533b"),
        ("a.gif\u{202E}x", "da3a7ab4bd463eb50ce74cf2e349c7c7"),
        // NUL and ":" are removed from the extension.
        ("http://example.com/a.p%00ng", "d4a3209a86c4d7ee42b72364afdf67b6.png"),
        ("http://example.com/a.b:c:d", "30dfa1f3a8ab50ba0adac536ee24c165.bcd"),
        // A path that does not decode to UTF-8 has no string, hence no extension.
        ("http://example.com/a%FF.png", "11a2fe4f16770986fae6159a8f384400"),
        // Only the last component counts; case is kept; the last dot wins.
        ("http://example.com/dir.d/file", "ae3b265d35f84d4b97668a8c3ede4ed5"),
        ("http://example.com/a.tar.GZ", "e9b77048d59b9c9124c581d16103059c.GZ"),
        // Userinfo, port, query and fragment around a normal path.
        ("https://user:pass@example.com:443/x/y.webp?sig=1#frag", "f5d70f050c3b80dc1b819189133ab5d5.webp"),
        ("http://[2001:db8::1]/a.heic", "11f6db04c9f9e26e802444b4209cd716.heic"),
        // Relative references are hierarchical.
        ("relative/path/pic.avif", "69b471846620716177cbf5fda59c3dde.avif"),
        ("/absolute/pic.bmp", "ff17a32036c413b2f23fbfb73f965c9e.bmp"),
        // Non-ASCII extension from a decoded path.
        ("http://example.com/%C3%A9t%C3%A9.jp%C3%A9g", "269952d93cff6daa02d4fdeaa0da3a04.jp\u{e9}g"),
        // Dots: a trailing dot, a leading dot, dots only.
        ("...", "2f43b42fd833d1e77420a8dae7419000"),
        (".hidden", "6b96ab441bab2f8d5022c57ffb17136e"),
        ("a.", "9fbcccf456ef61f9ea007c417297911d"),
    ])
    func branchVectors(key: String, expected: String) {
        #expect(SDFileName.forKey(key) == expected)
    }

    /// The 222 limit counts UTF-16 code units, not characters or UTF-8 bytes.
    @Test func extensionLimitCountsUTF16Units() {
        let accented = String(repeating: "\u{e9}", count: 222)  // 222 units, 444 UTF-8 bytes
        #expect(SDFileName.forKey("x." + accented) == "158aac82e76dd7a0e3ce08296fd66dec." + accented)
        let emoji111 = String(repeating: "\u{1F600}", count: 111)  // 222 units
        #expect(SDFileName.forKey("x." + emoji111) == "e20bf3730decdaa60bf350e87bfebb99." + emoji111)
        let emoji112 = String(repeating: "\u{1F600}", count: 112)  // 224 units: dropped
        #expect(SDFileName.forKey("x." + emoji112) == "b554726b57c87cf1948aa5b558d42d02")
    }

    @Test func locationLayout() throws {
        let location = try CacheLocation(root: "/var/cache/app", namespace: "avatars")
        #expect(location.folder == "/var/cache/app/com.hackemist.SDImageCache/avatars")
        #expect(location.privateFolder == "/var/cache/app/com.hackemist.SDImageCache/.imgwarm/avatars")
        #expect(try location.path(forKey: "kTestRectangle") == location.folder + "/58d38dae677b10308b7a7b5856903361")
    }

    @Test func locationResolution() throws {
        let env = ["HOME": "/home/u", "XDG_CACHE_HOME": "/xdg", "IMGWARM_CACHE_DIR": "/iw"]
        func folder(_ cacheDir: String?, _ namespace: String?, _ disk: String?, _ environment: [String: String]) throws
            -> String
        {
            try CacheLocation.resolve(
                cacheDir: cacheDir, namespace: namespace, diskCachePath: disk, environment: environment
            ).folder
        }
        #expect(try folder(nil, nil, nil, env) == "/iw/com.hackemist.SDImageCache/default")
        #expect(
            try folder(nil, nil, nil, ["HOME": "/home/u", "XDG_CACHE_HOME": "/xdg"])
                == "/xdg/com.hackemist.SDImageCache/default")
        #expect(try folder(nil, nil, nil, ["HOME": "/home/u"]) == "/home/u/.cache/com.hackemist.SDImageCache/default")
        #expect(try folder("/c", "ns", nil, env) == "/c/com.hackemist.SDImageCache/ns")
        #expect(try folder(nil, nil, "/data/images/", env) == "/data/images")
        #expect(throws: CacheLocationError.conflictingOptions) { try folder("/c", nil, "/d", env) }
        #expect(throws: CacheLocationError.invalidNamespace("a/b")) { try folder(nil, "a/b", nil, env) }
        // imgwarm's own folder beside the namespaces is no namespace, and no cache folder lies in one.
        #expect(throws: CacheLocationError.reservedNamespace(".imgwarm")) { try folder("/c", ".imgwarm", nil, env) }
        #expect(throws: CacheLocationError.insidePrivateFolder("/c/.imgwarm/default")) {
            try folder(nil, nil, "/c/.imgwarm/default/", env)
        }
        #expect(throws: CacheLocationError.insidePrivateFolder("/c/.imgwarm")) {
            try folder(nil, nil, "/c/x/../.imgwarm", env)
        }
        #expect(try folder(nil, nil, "/c/.imgwarm2", env) == "/c/.imgwarm2")
        #expect(throws: CacheLocationError.noHome) { try folder(nil, nil, nil, [:]) }
    }
}
