import Foundation
import TestSupport
import Testing

/// docs/ARCHITECTURE.md's rule that the engine never speaks in flags or exit codes, checked on its
/// sources: no string literal in `Sources/ImgwarmKit` spells a command-line flag (`--max-bytes`;
/// a message names a `Setting` instead, and the CLI spells it: `SettingFlags`), and no line, comment
/// or code, speaks of an exit code (the CLI maps typed errors to them: `ExitStatus`).
@Suite struct EngineWordsTests {
    /// The engine's source files and their lines.
    static func engineSources() throws -> [(file: String, lines: [Substring])] {
        let root = Fixtures.repositoryRoot.appendingPathComponent("Sources/ImgwarmKit")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "the engine's sources were found")
        return try files.map { file in
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            return (file, text.split(separator: "\n", omittingEmptySubsequences: false))
        }
    }

    /// The string literals of a line of code (none in a comment line): the text between quotes.
    static func literals(_ line: Substring) -> [Substring] {
        SwiftSource.stringLiterals(in: String(line)).map { Substring($0.text) }
    }

    /// `--` followed by a letter: how a flag is spelled.
    static func spellsAFlag(_ text: Substring) -> Bool {
        var rest = text[...]
        while let range = rest.range(of: "--") {
            if let next = rest[range.upperBound...].first, next.isLetter, next.isASCII { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }

    /// Every literal of a file, multi-line ones (`"""`) whole: a flag on any of their lines is seen.
    @Test func noStringLiteralOfTheEngineSpellsAFlag() throws {
        for (file, lines) in try Self.engineSources() {
            let text = lines.joined(separator: "\n")
            for literal in SwiftSource.stringLiterals(in: text) where Self.spellsAFlag(literal.text[...]) {
                Issue.record("\(file):\(literal.line) spells a flag; name a Setting instead: \(literal.text)")
            }
        }
    }

    @Test func noLineOfTheEngineSpeaksOfExitCodes() throws {
        for (file, lines) in try Self.engineSources() {
            for (number, line) in lines.enumerated() where line.lowercased().contains("exit code") {
                Issue.record("\(file):\(number + 1) speaks of an exit code: \(line)")
            }
        }
    }

    @Test func theCheckFindsAFlagInALiteral() {
        #expect(Self.literals(#"    return "more than --max-bytes (\(n))""#).contains(where: Self.spellsAFlag))
        #expect(!Self.literals(#"    return "more than \(Setting.maxBytes) (\(n))""#).contains(where: Self.spellsAFlag))
        #expect(!Self.literals("    /// Waits at most `--lock-timeout`.").contains(where: Self.spellsAFlag))
        #expect(!Self.literals(#"    let x = "a -- b" // --flag"#).contains(where: Self.spellsAFlag))
    }

    /// A multi-line literal is read whole, including the lines that hold no quote (read line by
    /// line, `Use --max-bytes` was not in any literal); a raw literal and a literal inside an
    /// interpolation are read too, and a commented-out literal is not.
    @Test func theCheckFindsAFlagInAMultiLineLiteral() {
        let source = """
            let help = \"\"\"
                Limits the body.
                Use --max-bytes to raise it.
                \"\"\"
            let raw = #"the "--timeout" setting"#
            let nested = "\\(flag ? "--force" : "")"
            // let commented = "--shard"
            """
        let found = SwiftSource.stringLiterals(in: source)
        let flagged = found.filter { Self.spellsAFlag($0.text[...]) }.map(\.line)
        #expect(flagged == [1, 5, 6], "\(found)")
        // The line-by-line reading this check had (the text between quotes of each line) saw
        // the nested and raw flags, not the multi-line one.
        let lineByLine = source.split(separator: "\n").filter {
            !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
        }
        .flatMap { line in
            let parts = line.split(separator: "\"", omittingEmptySubsequences: false)
            return stride(from: 1, to: parts.count, by: 2).map { parts[$0] }
        }
        #expect(!lineByLine.contains { $0.contains("--max-bytes") })
        #expect(found.contains { $0.text.contains("Use --max-bytes to raise it.") })
    }
}
