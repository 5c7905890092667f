import Foundation
import TestSupport
import Testing

/// Key → entry name is answered in one place (issue 32): `CacheLocation.entryName(forKey:index:)`
/// in `Cache/CacheLocation+EntryName.swift` asks the format (`KeyNamedFormat.fileName(forKey:)`)
/// or the index that names the entries (`EntryNamingIndex.entryName(forKey:)`); every other file
/// of the engine and the CLI asks it, so no second rule can diverge (for flutter, the index).
@Suite struct EntryNamingTests {
    static let home = "ImgwarmKit/Cache/CacheLocation+EntryName.swift"

    @Test func onlyTheOneFunctionAsksTheFormatOrTheIndexForAName() throws {
        let sources = Fixtures.repositoryRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.subpaths(atPath: sources.path)).filter { $0.hasSuffix(".swift") }
        #expect(files.contains(Self.home))
        // A call of the format's rule, or of an index's (one argument: the one function has two).
        let asks = [#/[.\s(]fileName\(forKey:/#, #/\.entryName\(forKey: [^,()]*\)/#]
        var found: [String] = []
        for file in files.sorted() where file != Self.home {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") || code.contains("func fileName(forKey")
                    || code.contains("func entryName(forKey")
                {
                    continue
                }
                if asks.contains(where: { code.contains($0) }) { found.append("\(file): \(code)") }
            }
        }
        #expect(found == [], "name a key's entry with CacheLocation.entryName(forKey:index:)")
    }
}
