import Foundation
import TestSupport
import Testing

/// docs/ARCHITECTURE.md's claim about the engine, checked on its sources: `Sources/ImgwarmKit`
/// imports the project's own Swift owners of the C libraries and the system layer, never a C
/// module, Glibc or Foundation.
@Suite struct ImportTests {
    static let allowed: Set<String> = ["ImgwarmSystem", "Curl", "Magick", "SQLite", "Synchronization"]

    /// Every `import` line of the Swift files under `Sources/<folder>`: (file, line, module).
    static func imports(under folder: String) throws -> [(file: String, line: String, module: String)] {
        let root = Fixtures.repositoryRoot.appendingPathComponent("Sources/" + folder)
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 10, "the sources of \(folder) were found")
        var found: [(String, String, String)] = []
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
                guard let first = words.first, first == "import" || first.hasPrefix("@") && words.contains("import")
                else { continue }
                found.append((file, String(line), String(words.last ?? "")))
            }
        }
        return found
    }

    @Test func theEngineImportsNoCModuleGlibcOrFoundation() throws {
        for found in try Self.imports(under: "ImgwarmKit") {
            #expect(Self.allowed.contains(found.module), "\(found.file): \(found.line)")
        }
    }

    /// The command line makes its system calls through ImgwarmSystem too (issue 22): it imports
    /// no C module, Glibc or Foundation.
    @Test func theCommandLineImportsNoCModuleGlibcOrFoundation() throws {
        let allowed = Self.allowed.union(["ImgwarmKit", "ArgumentParser"])
        for found in try Self.imports(under: "imgwarm") {
            #expect(allowed.contains(found.module), "\(found.file): \(found.line)")
        }
    }
}
