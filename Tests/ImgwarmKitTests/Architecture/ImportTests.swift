import Foundation
import TestSupport
import Testing

/// docs/ARCHITECTURE.md's claim about the engine, checked on its sources: `Sources/ImgwarmKit`
/// imports the project's own Swift owners of the C libraries and the system layer, never a C
/// module, Glibc or Foundation; the one C module it reads itself (OpenSSL's digests, `CCrypto`)
/// is imported `internal` by `Support/Digest.swift` alone, so that no other file calls it.
@Suite struct ImportTests {
    static let allowed: Set<String> = ["ImgwarmSystem", "Curl", "Magick", "SQLite", "Archive", "Synchronization"]

    /// Imports allowed in one file only: (file under `Sources/ImgwarmKit`, module).
    static let allowedInFile: Set<String> = ["Support/Digest.swift: CCrypto"]

    /// The module an `import` declaration imports, whatever its attributes (`@testable`,
    /// `@_exported`), access level (`internal import`, `public import`) and kind
    /// (`import struct Foundation.Date`); nil for a line that is no import.
    static func importedModule(_ line: Substring) -> String? {
        let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
        var words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")[...]
        while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) { words = words.dropFirst() }
        guard words.first == "import", words.count >= 2 else { return nil }
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
        let path = words.dropFirst().first { !kinds.contains($0) } ?? ""
        return String(path.split(separator: ".").first ?? path)
    }

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
                guard let module = importedModule(line) else { continue }
                found.append((file, String(line), module))
            }
        }
        return found
    }

    @Test func theEngineImportsNoCModuleGlibcOrFoundation() throws {
        let found = try Self.imports(under: "ImgwarmKit")
        for found in found {
            #expect(
                Self.allowed.contains(found.module) || Self.allowedInFile.contains("\(found.file): \(found.module)"),
                "\(found.file): \(found.line)")
        }
        // The exception is still taken: a stale one would allow the module in that file unseen.
        for exception in Self.allowedInFile {
            #expect(found.contains { "\($0.file): \($0.module)" == exception }, "\(exception)")
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

    /// Every form of an import declaration is read, `internal import` included (it was skipped,
    /// so `internal import CCrypto` in any file passed unlisted); code and comments are not.
    @Test func everyFormOfImportIsSeen() {
        #expect(Self.importedModule("internal import CCrypto") == "CCrypto")
        #expect(Self.importedModule("public import Foundation") == "Foundation")
        #expect(Self.importedModule("@preconcurrency internal import Glibc") == "Glibc")
        #expect(Self.importedModule("@_exported import Foundation") == "Foundation")
        #expect(Self.importedModule("import struct Foundation.Date") == "Foundation")
        #expect(Self.importedModule("private import CCurl.Easy") == "CCurl")
        #expect(Self.importedModule("    import ImgwarmSystem") == "ImgwarmSystem")
        #expect(Self.importedModule("/// import Foundation, never") == nil)
        #expect(Self.importedModule("let important = 1") == nil)
        #expect(Self.importedModule("internal var x = 1") == nil)
        // A file that is not Digest.swift may not import CCrypto, `internal` or not.
        #expect(!Self.allowed.contains("CCrypto"))
        #expect(!Self.allowedInFile.contains("Cache/CacheStore.swift: CCrypto"))
    }
}
