import Foundation
import TestSupport
import Testing

/// The README and the documents of `docs/` link to files and headings that exist: the manual
/// moved out of the README (issue 23), and a link that leads nowhere is a promise broken.
@Suite struct DocsLinkTests {
    /// GitHub's anchor of a heading: lower-cased, punctuation but `-` and `_` dropped, spaces
    /// made `-`.
    static func anchors(in text: String) -> Set<String> {
        var result = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
            }
            result.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return result
    }

    @Test func relativeLinksLeadSomewhere() throws {
        let root = Fixtures.repositoryRoot
        let documents =
            ["README.md"]
            + (try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path))
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        #expect(documents.contains("docs/usage.md"))
        var checked = 0
        for document in documents {
            let url = root.appendingPathComponent(document)
            var text = try String(contentsOf: url, encoding: .utf8)
            // Links inside code blocks are code, not links.
            text = text.replacingOccurrences(of: "(?s)```.*?```", with: "", options: .regularExpression)
            for match in text.matches(of: #/\]\(([^)\s]+)\)/#) {
                let link = String(match.1)
                if link.hasPrefix("http://") || link.hasPrefix("https://") || link.hasPrefix("mailto:") { continue }
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let target =
                    parts[0].isEmpty ? url : url.deletingLastPathComponent().appendingPathComponent(String(parts[0]))
                #expect(FileManager.default.fileExists(atPath: target.path), "\(document): \(link) leads to no file")
                if parts.count == 2, target.pathExtension == "md",
                    let targetText = try? String(contentsOf: target, encoding: .utf8)
                {
                    #expect(
                        Self.anchors(in: targetText).contains(String(parts[1])),
                        "\(document): \(link) leads to no heading")
                }
                checked += 1
            }
        }
        #expect(checked > 30, "the links were found")
    }
}
