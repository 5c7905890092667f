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
        let code = line.trimmingCharacters(in: .whitespaces)
        guard !code.hasPrefix("//") else { return [] }
        let parts = code.split(separator: "\"", omittingEmptySubsequences: false)
        return stride(from: 1, to: parts.count, by: 2).map { parts[$0] }
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

    @Test func noStringLiteralOfTheEngineSpellsAFlag() throws {
        for (file, lines) in try Self.engineSources() {
            for (number, line) in lines.enumerated() where Self.literals(line).contains(where: Self.spellsAFlag) {
                Issue.record("\(file):\(number + 1) spells a flag; name a Setting instead: \(line)")
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
}
