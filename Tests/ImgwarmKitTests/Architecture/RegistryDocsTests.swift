import Foundation
import ImgwarmKit
import TestSupport
import Testing

/// The registry (`CacheFormats.all`) is the one source of the formats: every copy of it in docs/
/// and the README, the JSON schemas' `cacheFormat` enums and the lists and tables written by
/// hand, says what the registry says, so a format added or renamed shows up here wherever it
/// was left out.
@Suite struct RegistryDocsTests {
    static let root = Fixtures.repositoryRoot

    static func text(_ file: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
    }

    /// The registered format names `text` writes as code spans (`` `kingfisher` ``), each once,
    /// in the order they first appear.
    static func codeNames(_ text: some StringProtocol) -> [String] {
        var names: [String] = []
        for match in String(text).matches(of: #/`([a-z0-9.]+)`/#) {
            let name = String(match.output.1)
            if CacheFormats.names.contains(name) && !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The paragraphs of a Markdown text, a table row being one of its own.
    static func paragraphs(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("|") {
                if !current.isEmpty { result.append(current) }
                current = line.hasPrefix("|") ? String(line) : ""
                if line.hasPrefix("|") {
                    result.append(current)
                    current = ""
                }
            } else {
                current += (current.isEmpty ? "" : " ") + line
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// The one paragraph (or table row) of `file` that holds `anchor`.
    static func paragraph(_ file: String, holding anchor: String) throws -> String {
        let found = paragraphs(try text(file)).filter { $0.contains(anchor) }
        #expect(found.count == 1, "\(file): \(found.count) paragraphs hold \(anchor)")
        return try #require(found.first)
    }

    /// The first cells of the rows of every table of `file` whose header's first cell is `header`.
    static func firstCells(_ file: String, header: String) throws -> [String] {
        var cells: [String] = []
        var inTable = false
        for line in try text(file).split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                inTable = false
                continue
            }
            let first = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first ?? ""
            let cell = first.trimmingCharacters(in: .whitespaces)
            if !inTable {
                inTable = cell == header
                continue
            }
            if !cell.hasPrefix("---") { cells.append(cell) }
        }
        return cells
    }

    // MARK: - schemas

    /// Every schema of docs/ with a `cacheFormat` property enumerates the registry, in its order;
    /// the five reports that name a format are those schemas (none dropped the property). A
    /// schema that is one of several documents (`oneOf`: one format's, several formats') has it
    /// in its one-format `document`, the enumeration in `$defs.cacheFormat`.
    @Test func everySchemasCacheFormatIsTheRegistry() throws {
        let docs = Self.root.appendingPathComponent("docs")
        let schemas = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter {
            $0.hasSuffix(".schema.json")
        }.sorted()
        var withFormat: [String] = []
        for name in schemas {
            let data = try Data(contentsOf: docs.appendingPathComponent(name))
            let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(name)")
            let (schema, cacheFormat) = JSONSchema.oneCacheDocument(root)
            guard let format = cacheFormat else { continue }
            withFormat.append(name)
            #expect(format["enum"] as? [String] == CacheFormats.names, "\(name)")
            #expect((schema["required"] as? [String])?.contains("cacheFormat") == true, "\(name)")
        }
        #expect(
            withFormat == [
                "clean-report.schema.json", "merge-report.schema.json", "prefetch-report.schema.json",
                "stats.schema.json", "verify-report.schema.json",
            ])
    }

    // MARK: - lists in prose

    /// The lists of formats written in docs/usage.md say what the registry and the engine say.
    @Test func usageListsAreTheRegistrys() throws {
        let file = "docs/usage.md"
        #expect(Self.codeNames(try Self.paragraph(file, holding: "| `--cache-format NAME` |")) == CacheFormats.names)
        #expect(
            Self.codeNames(try Self.paragraph(file, holding: "| `--namespace NAME` |"))
                == CacheFormats.all.filter { !$0.hasNamespace }.map(\.name))
        #expect(
            Self.codeNames(try Self.paragraph(file, holding: "`prefetch --expires-in AGE`"))
                == PrefetchOptions.formats(taking: .expiresIn))
        #expect(
            Self.codeNames(try Self.paragraph(file, holding: "`--max-age` and `--expire-type` apply to"))
                == CleanOptions.formats(taking: .maxAge))
    }

    /// The tables with a row per format name each format once: the README's (iOS and Android
    /// together), usage.md's clean rules.
    @Test func formatTablesNameEveryFormatOnce() throws {
        for file in ["README.md", "docs/usage.md"] {
            let cells = try Self.firstCells(file, header: "`--cache-format`")
            #expect(!cells.isEmpty, "\(file) has its table")
            #expect(cells.flatMap(Self.codeNames).sorted() == CacheFormats.names.sorted(), "\(file): \(cells)")
        }
    }

    /// The format docs speak of every registered format, and every `--cache-format` value written
    /// anywhere in the docs is a registered one (`glide|coil|coil2` and `sdwebimage,glide` count each).
    @Test func docsNameOnlyRegisteredFormats() throws {
        let formatDocs = try Self.text("docs/cache-formats.md") + Self.text("docs/cache-formats-android.md")
        #expect(Set(Self.codeNames(formatDocs)) == Set(CacheFormats.names))
        for file in ["README.md", "docs/usage.md", "docs/cache-formats.md", "docs/cache-formats-android.md"] {
            for match in try Self.text(file).matches(of: #/--cache-format[ =]([a-z0-9.|,]+)/#) {
                for name in match.output.1.split(whereSeparator: { $0 == "|" || $0 == "," }) where name != "NAME" {
                    #expect(CacheFormats.names.contains(String(name)), "\(file): --cache-format \(name)")
                }
            }
        }
    }

    /// The checks read what they are meant to: a paragraph over several lines, a table's first
    /// column, and a list that left a format out is told from the registry.
    @Test func theChecksReadTheDocsAsWritten() {
        let paragraphs = Self.paragraphs(
            "a `kingfisher`\nand `kingfisher7` only.\n\n| `nuke` | x |\n| `glide` | y |\ntail")
        #expect(paragraphs == ["a `kingfisher` and `kingfisher7` only.", "| `nuke` | x |", "| `glide` | y |", "tail"])
        #expect(
            Self.codeNames("`sdwebimage`, `kingfisher`, `nuke`, `foo`, `nuke`") == ["sdwebimage", "kingfisher", "nuke"])
        #expect(Self.codeNames("`sdwebimage`, `kingfisher`, `nuke`") != CacheFormats.names)
    }
}
