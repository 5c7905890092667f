import Foundation
import TestSupport
import Testing

/// The code lines of the project's Swift sources, as the architecture tests read them: every
/// `.swift` file under `Sources/<folder>` (subfolders too), comment lines left out, each line with
/// its file (relative to that folder) and its number.
enum SourceLines {
    static func code(in folder: String) throws -> [(file: String, number: Int, line: String)] {
        let root = Fixtures.repositoryRoot.appendingPathComponent("Sources").appendingPathComponent(folder)
        let files = try #require(FileManager.default.subpaths(atPath: root.path)).filter { $0.hasSuffix(".swift") }
        var lines: [(String, Int, String)] = []
        for file in files.sorted() {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                lines.append((file, index + 1, String(line)))
            }
        }
        return lines
    }
}
