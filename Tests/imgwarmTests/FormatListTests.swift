import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// The formats are listed by the registry (`CacheFormats.all`), never by hand: a hand-written
/// list in the command line goes stale the day a format is added (`clean --help` once named 5
/// of 10). Checked on the sources of `Sources/imgwarm` and on what `--help` prints.
@Suite struct FormatListTests {
    /// The format names `text` spells as words (`kingfisher` is not found in `kingfisher7`, nor
    /// in the library's name `Kingfisher`).
    static func formatNames(in text: String) -> [String] {
        CacheFormats.names.filter { name in
            let escaped = NSRegularExpression.escapedPattern(for: name)
            return text.range(of: "(?<![A-Za-z0-9_.])\(escaped)(?![A-Za-z0-9_])", options: .regularExpression) != nil
        }
    }

    /// The string literals of `source` that name two formats or more: a hand-written list. A
    /// format given to `--cache-format` in an example is a value, not an item of a list (nor
    /// are the formats of `--cache-format a,b`).
    static func handWrittenLists(in source: String) -> [SwiftSource.Literal] {
        SwiftSource.stringLiterals(in: source).filter {
            let prose = $0.text.replacingOccurrences(
                of: "--cache-format[ =][a-z0-9.,]+", with: "", options: .regularExpression)
            return formatNames(in: prose).count >= 2
        }
    }

    @Test func noStringLiteralOfTheCommandLineListsFormats() throws {
        let root = Fixtures.repositoryRoot.appendingPathComponent("Sources/imgwarm")
        let files = try #require(FileManager.default.subpaths(atPath: root.path)).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10, "the command line's sources were found")
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for literal in Self.handWrittenLists(in: text) {
                Issue.record(
                    "\(file):\(literal.line) lists formats by hand (\(Self.formatNames(in: literal.text).joined(separator: ", "))); build the list from CacheFormats.all"
                )
            }
        }
    }

    /// The check finds the lists it is there for, in a one-line or a multi-line literal, and
    /// passes a list the registry builds and a library named in prose.
    @Test func theCheckFindsAHandWrittenList() {
        let stale = #"""
                "kingfisher, kingfisher7: how long a stored or re-read file stays fresh",
            """#
        #expect(Self.handWrittenLists(in: stale).count == 1)
        let multiLine = #"""
            let help = """
                sdwebimage (SDWebImage 5.21, the default) names it by the MD5 of the key; \
                nuke by its SHA-1, fresco3.6 by v2.ols100.1/<shard>/<id>.cnt.
                """
            """#
        #expect(Self.formatNames(in: multiLine) == ["sdwebimage", "nuke", "fresco3.6"])
        #expect(Self.handWrittenLists(in: multiLine).count == 1)
        let built = #"""
            "\(CacheFormats.names.joined(separator: ", ")): Kingfisher and Nuke name files by a digest"
            """#
        #expect(Self.handWrittenLists(in: built).isEmpty)
        #expect(Self.formatNames(in: "kingfisher7 coil2 fresco3.6") == ["kingfisher7", "coil2", "fresco3.6"])
        let examples = #"""
            """
            Examples:
              imgwarm verify --cache-format kingfisher list.txt
              imgwarm verify --cache-format nuke list.txt
            """
            """#
        #expect(Self.handWrittenLists(in: examples).isEmpty)
    }

    /// Each command that takes `--cache-format` names every format in its help.
    @Test(arguments: [["prefetch"], ["clean"], ["stats"], ["verify"], ["path"]])
    func helpNamesEveryFormat(command: [String]) throws {
        let temp = try TemporaryFolder()
        let run = try CLI.run(command + ["--help"], home: temp.path)
        #expect(run.status == 0)
        let text = run.stdoutText.replacingOccurrences(of: "\n", with: " ")
        #expect(Self.formatNames(in: text) == CacheFormats.names, "\(command)")
    }
}
