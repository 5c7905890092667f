import Foundation
import ImgwarmKit
import TestSupport
import Testing

@testable import imgwarm

/// The small gaps a new user found (issue 48, item 5): completions from the registry, paths named
/// where they were looked for, help and docs that say what the code does.
@Suite(.startsTheBinary) struct SmallGapsTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// bash, zsh and fish offer every format of the registry for --cache-format, and the
    /// platforms for --platform (they offered nothing).
    @Test(arguments: ["bash", "zsh", "fish"])
    func completionsOfferTheRegistrysNames(shell: String) throws {
        let temp = try TemporaryFolder()
        let run = try CLI.run(["--generate-completion-script", shell], home: temp.path)
        #expect(run.status == 0)
        let script = run.stdoutText
        // The values as one list, as each shell's script writes a `.list` completion (the help
        // text's "sdwebimage, kingfisher, ..." is not one).
        func list(_ words: [String]) -> String {
            switch shell {
            case "bash": return words.map { "'\($0)'" }.joined(separator: "$'\\n'")
            case "zsh": return "=(" + words.map { "'\($0)'" }.joined(separator: " ") + ")"
            default: return "-rfka '" + words.joined(separator: " ") + "'"
            }
        }
        let formats = list(CacheFormats.names)
        let platforms = list(AppContainer.Platform.allCases.map(\.rawValue))
        #expect(script.contains(formats), "\(shell) does not complete --cache-format with \(formats)")
        #expect(script.contains(platforms), "\(shell) does not complete --platform with \(platforms)")
    }

    /// A relative --files-root, and a relative "file", are named with where they were looked for.
    @Test func filesRootErrorsNameWhereTheyLooked() throws {
        let temp = try TemporaryFolder()
        let list = try temp.write(
            "list.jsonl", Data("{\"url\": \"http://127.0.0.1:1/a.png\", \"file\": \"a.png\"}\n".utf8))
        let run = try ProcessRunner.run(
            CLI.binary, ["prefetch", "--cache-dir", temp.path("c"), "--files-root", "fixtures", list],
            environment: CLI.environment(home: temp.path), currentDirectory: temp.url, timeout: 60)
        #expect(run.status == 2)
        let looked = URL(fileURLWithPath: temp.path).resolvingSymlinksInPath().path + "/fixtures"
        #expect(
            run.stderrText.contains("--files-root fixtures (looked for at \(looked)): No such file or directory"),
            "\(run.stderrText)")
        let rules = LocalFileRules(root: temp.path)
        guard case .failure(let refusal) = rules.resolve("pics/a.png", listPath: list) else {
            Issue.record("a missing file was accepted")
            return
        }
        #expect(refusal.message.contains("\"file\" pics/a.png (looked for at \(temp.path)/pics/a.png)"), "\(refusal)")
    }

    @Test func prefetchHelpMentionsHAR() throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(["prefetch", "--help"], home: temp.path)
        let overview = help.stdoutText.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
        #expect(overview.contains("or a HAR capture (by its content"), "\(overview)")
        #expect(overview.contains("--offline stores their recorded bodies"))
    }

    /// usage.md's list of commands names every command imgwarm has.
    @Test func usageListsEveryCommand() throws {
        let usage = try Self.text("docs/usage.md")
        let start = try #require(usage.range(of: "## Commands\n\n"))
        let list = usage[start.upperBound...].prefix { $0 != ";" }
        for command in Imgwarm.configuration.subcommands {
            let name = command._commandName
            #expect(
                list.contains("`\(name)") || list.contains("`imgwarm \(name)`"),
                "docs/usage.md's command list lacks \(name)")
        }
    }

    /// The environment table says what goes under TMPDIR: --offline's scratch file, push's archive.
    @Test func environmentTableNamesWhatGoesUnderTMPDIR() throws {
        let usage = try Self.text("docs/usage.md")
        let row = try #require(usage.split(separator: "\n").first { $0.hasPrefix("| `TMPDIR` |") })
        #expect(row.contains("`push`") && row.contains("imgwarm-push-XXXXXX") && row.contains("mkdtemp"), "\(row)")
        #expect(row.contains("--offline") && row.contains("scratch file"), "\(row)")
    }

    /// The man pages come from the help through swift-argument-parser's generate-manual, which
    /// drops every character outside ASCII (keys detect's page read "run-as  tar").
    @Test func helpIsASCIIForTheManPages() throws {
        let temp = try TemporaryFolder()
        let dump = try CLI.run(["--experimental-dump-help"], home: temp.path)
        #expect(dump.status == 0)
        let text = dump.stdoutText
        #expect(text.unicodeScalars.allSatisfy { $0.isASCII }, "\(text.unicodeScalars.filter { !$0.isASCII })")
        for command in [["keys", "detect"], ["push"], ["pull"], ["blacklist", "list"]] {
            let help = try CLI.run(command + ["--experimental-dump-help"], home: temp.path)
            #expect(help.stdoutText.unicodeScalars.allSatisfy { $0.isASCII }, "\(command)")
        }
    }

    /// push and pull print --adb's default once (argument-parser appended "(default: adb)").
    @Test(arguments: ["push", "pull"]) func adbsDefaultOnce(command: String) throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run([command, "--help"], home: temp.path)
        let text = help.stdoutText.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
        #expect(text.contains("--adb <path> The adb program (default: adb on PATH). --"), "\(text)")
        #expect(!text.contains("(default: adb)"))
    }

    /// The README says push and pull were tried against a stand-in adb only, in its Commands
    /// table and its Android paragraph.
    @Test func readmeSaysPushAndPullMetOnlyAStandInAdb() throws {
        let readme = try Self.text("README.md")
        for command in ["| `imgwarm push", "| `imgwarm pull"] {
            let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix(command) })
            #expect(row.contains("stand-in adb"), "\(row)")
        }
        let android = try #require(readme.range(of: "**Android emulator**"))
        let paragraph = readme[android.lowerBound...].prefix(1200)
        #expect(paragraph.contains("tested here against a stand-in adb only"), "\(paragraph)")
    }
}
