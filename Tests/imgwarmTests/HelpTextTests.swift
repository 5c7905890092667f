import Foundation
import ImgwarmKit
import TestSupport
import Testing

@testable import imgwarm

/// What `--help` says, checked the way a user reads it: the examples paste into a shell as they
/// are printed, and the prefetch text agrees with the manual (docs/usage.md).
@Suite(.startsTheBinary) struct HelpTextTests {
    /// Every command and subcommand, from the command tree: a command added later is checked too.
    static let commands: [[String]] = {
        func walk(_ path: [String]) -> [[String]] {
            Imgwarm.commandNames(under: path).flatMap { [path + [$0]] + walk(path + [$0]) }
        }
        return walk([])
    }()

    /// The tree holds every command the top-level help lists, the subcommands too.
    @Test func everyCommandIsChecked() {
        #expect(Self.commands.contains(["blacklist", "remove"]) && Self.commands.contains(["version"]))
        #expect(Set(Self.commands.filter { $0.count == 1 }.map { $0[0] }) == Set(Imgwarm.commandNames(under: [])))
    }

    /// The README's table of commands has a row for every command of the tree (it once lacked
    /// `pack`'s when the command came).
    @Test func readmeTableNamesEveryCommand() throws {
        let readme = try String(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let rows = readme.split(separator: "\n").filter { $0.hasPrefix("| `imgwarm ") }
        for command in Imgwarm.commandNames(under: []) {
            #expect(rows.contains { $0.hasPrefix("| `imgwarm \(command)") }, "README has no row for \(command)")
        }
    }

    /// An example that goes on over several lines ends each of them but the last with a
    /// backslash: argument-parser wraps long lines at 80 columns, and a wrapped line (it once
    /// split `--disk-cache-path "$SIM_CACHES/…"` in two) breaks when pasted.
    @Test(arguments: commands)
    func examplesPasteIntoAShell(command: [String]) throws {
        let temp = try TemporaryFolder()
        let help = try CLI.run(command + ["--help"], home: temp.path)
        #expect(help.status == 0)
        let lines = help.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Every command shows how it is called: a help without examples fails (it used to pass
        // unchecked, so `blacklist list` and `version` had none).
        let start = try #require(lines.firstIndex(of: "Examples:"), "\(command) has no Examples: section")
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

    /// `--offline` says what it does, its outcome and its default (docs/usage.md, "Seeding
    /// offline from a HAR's bodies").
    @Test func prefetchHelpExplainsOffline() throws {
        let text = try Self.help(["prefetch"])
        #expect(text.contains("--offline Make no request: store each HAR entry's recorded body"), "\(text)")
        #expect(text.contains("no-body, exit 1 (default off: entries are downloaded)"), "\(text)")
        #expect(text.contains("ETag, Last-Modified, Cache-Control, Content-Type"), "\(text)")
    }

    /// `command --help` as one line: argument-parser's wrapping undone.
    static func help(_ command: [String]) throws -> String {
        let temp = try TemporaryFolder()
        let run = try CLI.run(command + ["--help"], home: temp.path)
        #expect(run.status == 0)
        return run.stdoutText.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(
            of: "  +", with: " ", options: .regularExpression)
    }

    /// The clean help says how each format is cleaned (docs/cache-formats.md,
    /// docs/cache-formats-android.md), in the words of each library's own pass.
    @Test func cleanHelpCoversEveryFormat() throws {
        let text = try Self.help(["clean"])
        #expect(
            text.contains(
                "kingfisher, kingfisher7: every file whose modification time (its expiry date) is at or before now goes"
            ), "\(text)")
        #expect(text.contains("the oldest by creation date (the change time stands in"), "\(text)")
        #expect(text.contains("go until it is at most half of it"), "\(text)")
        #expect(text.contains("nuke: nothing expires by age"), "\(text)")
        #expect(
            text.contains(
                "when the allocated size is above --max-size (default 150MiB), the least recently read (oldest access time) go until it is at most 70 % of it"
            ), "\(text)")
        #expect(
            text.contains(
                "glide, coil, coil2: nothing expires by age; then, when the logical size its index lists is above --max-size (default 250MiB), the least recently used, in its index's order, go until it is at most the limit"
            ), "\(text)")
        #expect(
            text.contains(
                "fresco, fresco3.6: nothing expires by age; then, when the logical size is above --max-size (default 40MiB), those dated more than two hours ahead, then the oldest by modification time, go until it is below 90 % of it"
            ), "\(text)")
        #expect(text.contains("flutter: flutter_cache_manager's cleanup removes rows untouched for 30 days"), "\(text)")
        #expect(
            text.contains(
                "pinremoteimage: nothing expires by age; then, when the allocated size is above --max-size (default 50MiB), the oldest by modification time go until it is at most the limit"
            ), "\(text)")
        #expect(
            text.contains(
                "Default: none for sdwebimage, kingfisher, kingfisher7; 150MiB for nuke; 250MiB for glide, coil, coil2; 40MiB for fresco, fresco3.6; 50MiB for pinremoteimage. Not for flutter."
            ), "\(text)")
        #expect(!text.contains("When the allocated size is above this, trim to below half of it"), "\(text)")
    }

    /// Every registered format has its clean rule, its --max-size default (or says it takes none)
    /// and its entry names in the clean help, so a format added to the registry cannot be left out.
    @Test(arguments: CacheFormats.all.map(\.name)) func cleanHelpNamesTheFormat(name: String) throws {
        let text = try Self.help(["clean"])
        let format = try #require(CacheFormats.named(name))
        let groups = text.matches(of: #/\b((?:[a-z0-9.]+, )*[a-z0-9.]+): /#).map {
            $0.output.1.split(separator: ", ").map(String.init)
        }
        // Its rule, and its entry names for the guard: two lines that start with its name.
        #expect(groups.filter { $0.contains(name) }.count >= 2, "\(name) in \(text)")
        #expect(text.contains(format.entryNameShape), "\(name)")
        let rules = format.cleanRules
        if case .index(let words) = rules.expiry {
            #expect(text.contains(words), "\(name)")
        } else if rules.defaultMaxSize > 0 {
            #expect(text.contains("\(rules.defaultMaxSize >> 20)MiB for "), "\(name)")
        }
    }

    /// The top-level help names every format and its library, not SDWebImage's alone.
    @Test(arguments: CacheFormats.all.map(\.name)) func topLevelHelpNamesTheFormat(name: String) throws {
        let text = try Self.help([])
        let format = try #require(CacheFormats.named(name))
        #expect(text.contains("\(name) (\(format.library)"), "\(text)")
        #expect(!text.contains("so an app using SDWebImage finds them"), "\(text)")
    }

    /// path's help says how every format names its files.
    @Test(arguments: CacheFormats.all.map(\.name)) func pathHelpNamesTheFormat(name: String) throws {
        let text = try Self.help(["path"])
        let word = try Regex("(^|[^a-z0-9_.])\(NSRegularExpression.escapedPattern(for: name))($|[^a-z0-9_])")
        #expect(text.contains(word), "\(name) in \(text)")
    }

    /// verify's help names every reason the engine can give for a miss, as the summary and the
    /// JSON spell it.
    @Test(arguments: EntryMiss.allCases) func verifyHelpNamesTheMissReason(reason: EntryMiss) throws {
        let text = try Self.help(["verify"])
        #expect(text.contains("\(reason.rawValue): \(reason.description)"), "\(reason) in \(text)")
    }

    /// --namespace names every format with a fixed folder name.
    @Test func namespaceHelpNamesEveryFixedFolderFormat() throws {
        let text = try Self.help(["stats"])
        let fixed = CacheFormats.all.filter { !$0.hasNamespace }.map(\.name)
        #expect(fixed.count > 1)
        #expect(
            text.contains("Formats with a fixed folder name (\(fixed.joined(separator: ", "))) take none."), "\(text)")
    }

    /// stats' help says whose totals it counts: SDWebImage's only for sdwebimage, and that Fresco's
    /// layout folders are not entries; each format whose files carry their expiry is named.
    @Test func statsHelpSpeaksOfEveryFormat() throws {
        let text = try Self.help(["stats"])
        #expect(text.contains("for sdwebimage, SDWebImage's totalDiskCount and totalDiskSize"), "\(text)")
        #expect(
            text.contains(
                "For fresco, fresco3.6, the folder v2.ols100.1 and the folders in it are the library's layout, not entries"
            ), "\(text)")
        #expect(
            text.contains(
                "what clean --max-size counts for sdwebimage, nuke, pinremoteimage; the others count logical bytes"),
            "\(text)")
    }
}
