import Foundation
import TestSupport
import Testing

/// The README's "Layout of the repository" names every target of Package.swift under Sources/
/// (it once missed CCrypto, ImgwarmSystem, imgwarm-peak and imgwarm-magick-probe), and every
/// folder of Sources/.
@Suite struct ReadmeLayoutTests {
    @Test func layoutNamesEveryTarget() throws {
        let root = Fixtures.repositoryRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "## Layout of the repository"))
        let block = try #require(readme[start.upperBound...].split(separator: "```").dropFirst().first)
        // The first column of each Sources/ line: "Sources/Curl, Magick, SQLite" names three.
        let named = Set(
            block.split(separator: "\n").filter { $0.hasPrefix("Sources/") }.flatMap { line in
                line.prefix(38).dropFirst("Sources/".count).split(whereSeparator: { $0 == "," || $0 == " " })
                    .map(String.init)
            })
        let package = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declared = package.matches(of: /\.(?:target|systemLibrary|executableTarget)\(\s*name: "([^"]+)"/).map {
            String($0.1)
        }
        #expect(declared.count >= 16, "\(declared)")
        let folders = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
        for target in Set(declared).union(folders) {
            #expect(named.contains(target), "README's layout does not name Sources/\(target): \(named.sorted())")
        }
    }
}
