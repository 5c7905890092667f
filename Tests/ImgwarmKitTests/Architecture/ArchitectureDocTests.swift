import Foundation
import TestSupport
import Testing

/// docs/ARCHITECTURE.md is a guide read in ten minutes, and what it names is there: every type it
/// writes as code (`` `CacheStore` ``, `` `PrefetchJob.Configuration` ``) is declared under
/// Sources/, every source path it writes as code (`` `Jobs/CleanJob.swift` ``, `` `Cache/Formats/` ``)
/// exists, and its list of the index's callers is whole (issue 51, item 5).
@Suite struct ArchitectureDocTests {
    static let root = Fixtures.repositoryRoot
    static let file = "docs/ARCHITECTURE.md"

    static func text() throws -> String {
        try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
    }

    /// The Swift files under `folder` (Sources/ or Tests/), by path relative to it.
    static func sources(_ folder: String = "Sources") throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(folder)
        let paths = try #require(FileManager.default.subpaths(atPath: base.path)).filter { $0.hasSuffix(".swift") }
        return try paths.sorted().map {
            ($0, try String(contentsOf: base.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// The names declared by `sources` as types (or extended), and those declared as members
    /// (`func`, `var`, `let`, `case`, `init` labels are not needed: a member is named without them).
    static func declarations(_ sources: [(path: String, text: String)]) -> (types: Set<String>, members: Set<String>) {
        var types: Set<String> = []
        var members: Set<String> = []
        for (_, text) in sources {
            for match in text.matches(
                of: #/\b(?:struct|class|enum|protocol|typealias|actor|extension)\s+([A-Za-z_][\w.]*)/#)
            {
                types.formUnion(match.output.1.split(separator: ".").map(String.init))
            }
            for match in text.matches(of: #/\b(?:func|var|let|case)\s+`?([A-Za-z_]\w*)/#) {
                members.insert(String(match.output.1))
            }
            // The further cases of a list (`case a, b`).
            for match in text.matches(of: #/\bcase\s+[a-z]\w*(?:\([^)]*\))?((?:\s*,\s*[a-z]\w*(?:\([^)]*\))?)+)/#) {
                for other in match.output.1.matches(of: #/,\s*([a-z]\w*)/#) { members.insert(String(other.output.1)) }
            }
        }
        return (types, members)
    }

    /// The code spans of `text` that fail: a type (a capitalised name with a lower-case letter,
    /// optionally with members, `Type.member` or `Type.member(label:)`) declared nowhere, a target
    /// name aside; a path (a `/` and no space: `Jobs/CleanJob.swift`, `Cache/Formats/`) that names
    /// nothing under Sources/ImgwarmKit, Sources/imgwarm, Sources/ or the repository root; a Swift
    /// file's bare name (`Clean.swift`) that no file under Sources/ has.
    static func violations(
        in text: String, types: Set<String>, members: Set<String>, files: Set<String>, exists: (String) -> Bool
    ) -> [String] {
        var found: [String] = []
        let spans = text.replacingOccurrences(of: "(?s)```.*?```", with: "", options: .regularExpression)
            .matches(of: #/`([^`\n]+)`/#).map { String($0.output.1) }
        for span in spans where !span.hasPrefix("-") {
            if span.contains("/") {
                guard !span.contains(where: \.isWhitespace) else { continue }
                // `Cache/Formats/<Name>/`: the folder the placeholder is in.
                let path = span.components(separatedBy: "<").first ?? span
                let bases = ["Sources/ImgwarmKit/", "Sources/imgwarm/", "Sources/", ""]
                if !bases.contains(where: { exists($0 + path) }) { found.append(span) }
                continue
            }
            if span.hasSuffix(".swift") {
                if !files.contains(span) { found.append(span) }
                continue
            }
            guard let name = span.wholeMatch(of: #/([A-Z]\w*)((?:\.[A-Za-z_]\w*)*)(\([\w:]*\))?/#),
                name.output.1.contains(where: \.isLowercase)
            else { continue }
            let head = String(name.output.1)
            let rest = name.output.2.split(separator: ".").map(String.init)
            var known = types.contains(head) || exists("Sources/" + head + "/")
            for member in rest {
                known = known && (member.first!.isUppercase ? types.contains(member) : members.contains(member))
            }
            if !known { found.append(span) }
        }
        return found
    }

    /// What Sources/ declares (types, members, file names), and the test suites of Tests/, which
    /// the guide names as the checks of its rules.
    static func declared() throws -> (types: Set<String>, members: Set<String>, files: Set<String>) {
        let code = try Self.sources()
        let (types, members) = Self.declarations(code)
        let suites = Self.declarations(try Self.sources("Tests")).types.filter { $0.hasSuffix("Tests") }
        let files = Set(code.map { String($0.path.split(separator: "/").last!) })
        return (types.union(suites), members, files)
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    @Test func namesAndPathsAreDeclared() throws {
        let (types, members, files) = try Self.declared()
        let text = try Self.text()
        #expect(
            Self.violations(in: text, types: types, members: members, files: files, exists: Self.exists) == [])
        #expect(text.matches(of: #/`[A-Z][a-z]\w*`/#).count > 100, "the names were read")
    }

    /// The check fails on what is made up, and passes what is true.
    @Test func theCheckFindsMadeUpNames() throws {
        let (types, members, files) = try Self.declared()
        let crafted = """
            `CleanJob.run` walks `Cache/DiskCache+Clean.swift` and `Cache/Formats/<Name>/` with `CacheFormats.all`,
            `CleanOptions.policy(for:)`, `Clean.swift`, `ImgwarmSystem`, `DocsLinkTests`; `--max-size/x`, `HTTP`, `<key>.0`.
            But `NoSuchTypeAnywhere`, `CleanJob.noSuchMember`, `Cache/NoSuchFile.swift`, `Nowhere/`, `Gone.swift`.
            ```
            `InACodeBlock`
            ```
            """
        #expect(
            Self.violations(in: crafted, types: types, members: members, files: files, exists: Self.exists) == [
                "NoSuchTypeAnywhere", "CleanJob.noSuchMember", "Cache/NoSuchFile.swift", "Nowhere/", "Gone.swift",
            ])
    }

    /// At most 1,600 words, counted as `wc -w` counts them.
    @Test func isShort() throws {
        let words = try Self.text().split(whereSeparator: \.isWhitespace).count
        #expect(words <= 1600, "\(Self.file) has \(words) words")
        #expect(words > 500, "the guide was read")
    }

    /// Every engine file that makes a cache's index (`makeIndex()`) is named in the guide's list.
    @Test func theIndexCallersAreListed() throws {
        let text = try Self.text()
        let list = try #require(
            RegistryDocsTests.paragraphs(text).first { $0.contains("`CacheLocation.makeIndex()`, called from") })
        var callers: [String] = []
        for (path, source) in try Self.sources() where path.hasPrefix("ImgwarmKit/") {
            let code = source.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            guard code.contains(where: { $0.contains("makeIndex()") && !$0.contains("func makeIndex") }) else {
                continue
            }
            callers.append(String(path.split(separator: "/").last!.dropLast(".swift".count)))
        }
        #expect(callers.count >= 8, "\(callers)")
        for caller in callers {
            // A file is named by its type (`CleanJob`), or by its name when a facet (`VerifyJob+Index.swift`).
            #expect(
                ["`\(caller)`", "`\(caller).swift`", "`\(caller)."].contains(where: list.contains),
                "\(caller) is not listed")
        }
    }
}
