import ArgumentParser
import Curl
import ImgwarmKit
import Magick
import SQLite

/// `imgwarm version [--verbose]`: imgwarm's version, and with `--verbose` what it links, the way
/// `curl -V` shows it (for bug reports and for checking a host before a run).
struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print imgwarm's version; with --verbose, the libraries it links and their features.",
        discussion: """
            --verbose lists libcurl (TLS library, HTTP/2, HTTP/3, brotli, zstd, protocols), \
            ImageMagick (version, features, and for each coder imgwarm uses whether this build can \
            read it) and SQLite. A coder that is missing makes the images of that format fail \
            as unsupported-format.

            Examples:
              imgwarm version
              imgwarm version --verbose | grep -i webp
            """)

    @Flag(
        name: [.customShort("V"), .customShort("v"), .long],
        help: "Also print the libraries imgwarm links and their features.")
    var verbose = false

    func run() throws {
        Console.output("imgwarm \(ImgwarmVersion.current)\n")
        guard verbose else { return }
        Console.output(VersionReport.lines().joined(separator: "\n") + "\n")
    }
}

/// The text of `imgwarm version --verbose`, one library per block.
enum VersionReport {
    /// The coders imgwarm asks ImageMagick for, in the order of `ImageFormat`, each once.
    static var coders: [String] {
        var seen: Set<String> = []
        return ImageFormat.allCases.filter(\.isRaster).map(\.magickCoder).filter { seen.insert($0).inserted }
    }

    static func lines() -> [String] {
        var lines: [String] = []
        let curl = Curl.versionInfo
        func yes(_ flag: Bool, _ detail: String?) -> String {
            flag ? (detail.map { "yes (\($0))" } ?? "yes") : "no"
        }
        lines.append("libcurl \(curl.version) (\(curl.host))")
        lines.append("  TLS:         \(curl.tls ?? "none")")
        lines.append("  HTTP/2:      \(yes(curl.http2, curl.nghttp2.map { "nghttp2/\($0)" }))")
        lines.append("  HTTP/3:      \(yes(curl.http3, nil))")
        lines.append("  gzip:        \(yes(curl.zlib != nil, curl.zlib.map { "zlib/\($0)" }))")
        lines.append("  brotli:      \(yes(curl.brotli != nil, curl.brotli))")
        lines.append("  zstd:        \(yes(curl.zstd != nil, curl.zstd))")
        lines.append("  protocols:   \(curl.protocols.joined(separator: " "))")
        if !curl.features.isEmpty {
            lines.append("  features:    \(curl.features.joined(separator: " "))")
        }

        lines.append(Magick.version)
        lines.append("  release:     \(Magick.releaseDate)")
        lines.append("  features:    \(Magick.features.trimmed)")
        lines.append("  delegates:   \(Magick.delegates.trimmed)")
        lines.append("  coders imgwarm reads (each only for the format its magic bytes show):")
        let width = coders.map(\.count).max() ?? 0
        for coder in coders {
            let info = Magick.coderInfo(coder)
            let name = coder + String(repeating: " ", count: width - coder.count)
            lines.append("    \(name)  \(yes(info.canRead, info.library))")
        }

        lines.append("SQLite \(SQLiteLibrary.version)")
        lines.append("  source:      \(SQLiteLibrary.sourceID)")
        lines.append("  thread-safe: \(SQLiteLibrary.isThreadSafe ? "yes" : "no")")
        return lines
    }
}

extension String {
    fileprivate var trimmed: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
