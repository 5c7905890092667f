import Foundation
import TestSupport
import Testing

/// What `--help` says, checked the way a user reads it: the examples paste into a shell as they
/// are printed, and the prefetch text agrees with the manual (docs/usage.md).
@Suite struct HelpTextTests {
    static let commands: [[String]] = [
        ["prefetch"], ["path"], ["stats"], ["clean"], ["verify"], ["blacklist"], ["blacklist", "list"], ["version"],
    ]

    /// An example that goes on over several lines ends each of them but the last with a
    /// backslash: argument-parser wraps long lines at 80 columns, and a wrapped line (it once
    /// split `--disk-cache-path "$SIM_CACHES/…"` in two) breaks when pasted.
    @Test(arguments: commands)
    func examplesPasteIntoAShell(command: [String]) throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(command + ["--help"], home: temp.path)
        #expect(help.status == 0)
        let lines = help.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "Examples:") else { return }
        let examples = lines[(start + 1)...].prefix { !$0.isEmpty }
        #expect(!examples.isEmpty)
        func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }
        for (line, next) in zip(examples, examples.dropFirst()) where indent(next) > indent(line) {
            #expect(line.hasSuffix("\\"), "\(command): '\(line)' goes on without a backslash")
        }
        for line in examples {
            #expect(line.hasPrefix("  "), "\(command): '\(line)' was wrapped")
        }
    }

    /// The prefetch help says what the manual says: failures are printed under --quiet too, and
    /// imgwarm reads JPEG, PNG, GIF and WebP headers itself.
    @Test func prefetchHelpAgreesWithTheReadme() throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(["prefetch", "--help"], home: temp.path).stdoutText
        let text = help.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(
            of: "  +", with: " ", options: .regularExpression)
        #expect(!text.contains("(unless --quiet)"))
        #expect(text.contains("also under --quiet"), "\(text)")
        #expect(text.contains("by imgwarm for JPEG, PNG, GIF and WebP"), "\(text)")
    }

    /// The clean help says how each format is cleaned (docs/cache-formats.md), in the words of
    /// Kingfisher's and Nuke's own passes.
    @Test func cleanHelpCoversEveryFormat() throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(["clean", "--help"], home: temp.path).stdoutText
        let text = help.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(
            of: "  +", with: " ", options: .regularExpression)
        #expect(
            text.contains(
                "kingfisher, kingfisher7: every file whose modification time (its expiry date) is at or before now goes"
            ), "\(text)")
        #expect(text.contains("the oldest by creation date go until it is at most half"), "\(text)")
        #expect(text.contains("nuke: nothing expires by age"), "\(text)")
        #expect(text.contains("the least recently read go until it is at most 70 % of it"), "\(text)")
        #expect(text.contains("default 150MiB"), "\(text)")
    }
}
