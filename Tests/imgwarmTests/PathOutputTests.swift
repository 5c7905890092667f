import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// A URL's extension can put any character in a file name (`%0A` a newline), as SDWebImage's
/// would (issue 21): `path` prints one escaped line per key, or exact NUL-terminated bytes with
/// `-0`; `clean --verbose` escapes the names it lists.
@Suite(.startsTheBinary) struct PathOutputTests {
    let key = "https://cdn.example.com/a.jp%0Ag"
    let controls = "https://cdn.example.com/b.x%09%1B%5C%C2%9B"

    @Test func theFileNameReallyHoldsTheCharacters() {
        #expect(SDFileName.forKey(key).hasSuffix(".jp\ng"))
        #expect(SDFileName.forKey(controls).hasSuffix(".x\t\u{1B}\\\u{9B}"))
    }

    @Test func textOutputIsOneEscapedLinePerKey() throws {
        let temp = try TemporaryFolder()
        let hash = { (key: String) in SDFileName.hash(of: key).hex }
        let result = try CLI.run(
            ["path", "--disk-cache-path", "/data/img", key, controls, "plain.png"], home: temp.path)
        #expect(result.status == 0)
        #expect(
            result.stdoutText
                == "/data/img/\(hash(key)).jp\\ng\n/data/img/\(hash(controls)).x\\t\\x1b\\\\\\xc2\\x9b\n/data/img/"
                + SDFileName.forKey("plain.png") + "\n", "\(result.stdoutText)")

        // Standard input too; --name-only as well.
        let piped = try CLI.run(["path", "--name-only", "-"], stdin: Data((key + "\n").utf8), home: temp.path)
        #expect(piped.stdoutText == "\(hash(key)).jp\\ng\n")
    }

    @Test func nullOutputIsTheExactBytes() throws {
        let temp = try TemporaryFolder()
        for flag in ["-0", "--null"] {
            let result = try CLI.run(["path", flag, "--disk-cache-path", "/data/img", key, controls], home: temp.path)
            #expect(result.status == 0)
            let expected = "/data/img/" + SDFileName.forKey(key) + "\0/data/img/" + SDFileName.forKey(controls) + "\0"
            #expect(result.stdout == Data(expected.utf8), "\(flag): \(result.stdoutText.debugDescription)")
        }
        let piped = try CLI.run(["path", "-0", "--name-only", "-"], stdin: Data((key + "\n").utf8), home: temp.path)
        #expect(piped.stdout == Data((SDFileName.forKey(key) + "\0").utf8))
    }

    @Test func cleanVerboseEscapesTheNamesItLists() throws {
        let temp = try TemporaryFolder()
        let name = SDFileName.forKey(key)
        try temp.write("cache/" + name, Data([1, 2, 3]))
        let result = try CLI.run(
            ["clean", "--disk-cache-path", temp.path("cache"), "--max-age", "0", "--verbose"], home: temp.path)
        #expect(result.status == 0, "\(result.stderrText)")
        let deleted = result.stderrText.split(separator: "\n").filter { $0.hasPrefix("deleted ") }
        #expect(deleted.count == 1, "\(result.stderrText.debugDescription)")
        #expect(deleted.first?.hasPrefix("deleted \(SDFileName.hash(of: key).hex).jp\\ng (expired") == true)
        #expect(!FileManager.default.fileExists(atPath: temp.path("cache/" + name)))
    }
}
