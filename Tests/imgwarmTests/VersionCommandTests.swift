import Foundation
import ImgwarmKit
import SQLite
import TestSupport
import Testing

/// `imgwarm --version` and `imgwarm version [--verbose]`.
@Suite(.startsTheBinary) struct VersionCommandTests {
    @Test func versionFlagStaysOneShortLine() throws {
        let temp = try TemporaryFolder()
        let result = try CLI.run(["--version"], home: temp.path)
        #expect(result.status == 0)
        #expect(result.stdoutText == ImgwarmVersion.current + "\n")
        let plain = try CLI.run(["version"], home: temp.path)
        #expect(plain.status == 0)
        #expect(plain.stdoutText == "imgwarm \(ImgwarmVersion.current)\n")
    }

    @Test func verboseListsLibrariesFeaturesAndCoders() throws {
        let temp = try TemporaryFolder()
        let short = try CLI.run(["version", "-V"], home: temp.path)
        let long = try CLI.run(["version", "--verbose"], home: temp.path)
        #expect(short.status == 0 && long.status == 0)
        #expect(short.stdoutText == long.stdoutText)
        let lines = short.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.first == "imgwarm \(ImgwarmVersion.current)")
        // libcurl: its version, then the features a prefetch depends on, each yes or no.
        let curlLine = try #require(lines.first { $0.hasPrefix("libcurl ") })
        #expect(curlLine.split(separator: " ")[1].first?.isNumber == true)
        for feature in ["TLS:", "HTTP/2:", "brotli:", "zstd:", "gzip:", "protocols:"] {
            #expect(lines.contains { $0.hasPrefix("  " + feature) }, "no \(feature) line")
        }
        let protocols = try #require(lines.first { $0.hasPrefix("  protocols:") })
        #expect(protocols.split(separator: " ").contains("https"))
        // ImageMagick: its version, then every coder imgwarm reads, once each.
        #expect(lines.contains { $0.hasPrefix("ImageMagick 6.") })
        let coders = Set(ImageFormat.allCases.filter(\.isRaster).map(\.magickCoder))
        let coderLines = lines.filter { line in coders.contains { line.hasPrefix("    \($0) ") } }
        #expect(coderLines.count == coders.count)
        // The fixtures' JPEG and PNG are validated by the other tests, so these coders exist here.
        #expect(coderLines.contains { $0.hasPrefix("    JPEG ") && $0.contains(" yes") })
        #expect(coderLines.contains { $0.hasPrefix("    PNG ") && $0.contains(" yes") })
        // SQLite: the library this process links too.
        #expect(lines.contains("SQLite \(SQLiteLibrary.version)"))
    }
}
