import Foundation
import TestSupport
import Testing

/// docs/ARCHITECTURE.md's claim about the engine, checked on its sources: `Sources/ImgwarmKit`
/// imports the project's own Swift owners of the C libraries and the system layer, never a C
/// module, Glibc or Foundation.
@Suite struct ImportTests {
    static let allowed: Set<String> = ["ImgwarmSystem", "Curl", "Magick", "SQLite", "Synchronization"]

    @Test func theEngineImportsNoCModuleGlibcOrFoundation() throws {
        let root = Fixtures.repositoryRoot.appendingPathComponent("Sources/ImgwarmKit")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50, "the engine's sources were found")
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
                guard let first = words.first, first == "import" || first.hasPrefix("@") && words.contains("import")
                else { continue }
                let module = String(words.last ?? "")
                #expect(Self.allowed.contains(module), "\(file): \(line)")
            }
        }
    }

    /// The command line makes its system calls through ImgwarmSystem too (issue 22): it imports
    /// no C module, Glibc or Foundation.
    @Test func theCommandLineImportsNoCModuleGlibcOrFoundation() throws {
        let allowed = Self.allowed.union(["ImgwarmKit", "ArgumentParser"])
        let root = Fixtures.repositoryRoot.appendingPathComponent("Sources/imgwarm")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10, "the command line's sources were found")
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
                guard let first = words.first, first == "import" || first.hasPrefix("@") && words.contains("import")
                else { continue }
                #expect(allowed.contains(String(words.last ?? "")), "\(file): \(line)")
            }
        }
    }
}
