import Foundation
import TestSupport
import Testing

/// Format facts live in the formats (issue 51, item 3): outside `Cache/Formats/` and the
/// registry (`Cache/CacheFormat.swift`), no code names a concrete format type or compares a
/// library's name; the engine and the CLI ask the registry and the formats' capabilities.
@Suite struct FormatFactsTests {
    static let formatTypes = [
        "SDWebImageFormat", "KingfisherFormat", "NukeFormat", "GlideFormat", "CoilFormat", "FrescoFormat",
        "FlutterFormat", "OkHttpFormat", "PINRemoteImageFormat",
    ]
    static let libraries = [
        "SDWebImage", "Kingfisher", "Nuke", "Glide", "Coil", "Fresco", "flutter_cache_manager", "OkHttp", "Picasso",
        "PINRemoteImage", "PINCache",
    ]

    static func outsideTheFormats() throws -> [(file: String, line: String)] {
        try
            (["ImgwarmKit", "imgwarm"].flatMap { folder in
                try SourceLines.code(in: folder).map { (file: folder + "/" + $0.file, line: $0.line) }
            }).filter {
                !$0.file.hasPrefix("ImgwarmKit/Cache/Formats/") && $0.file != "ImgwarmKit/Cache/CacheFormat.swift"
            }
    }

    @Test func noConcreteFormatTypeOutsideTheFormatsAndTheRegistry() throws {
        let lines = try Self.outsideTheFormats()
        #expect(lines.count > 1000, "the sources were read")
        for type in Self.formatTypes {
            let found = lines.filter { $0.line.range(of: "\\b\(type)\\b", options: .regularExpression) != nil }
            #expect(found.isEmpty, "\(type): \(found.map { "\($0.file): \($0.line)" })")
        }
    }

    @Test func noLibraryNameIsCompared() throws {
        let lines = try Self.outsideTheFormats()
        for library in Self.libraries {
            let pattern = "(==|!=)\\s*\"\(library)|\"\(library)\"\\s*(==|!=)|case \"\(library)"
            let found = lines.filter { $0.line.range(of: pattern, options: .regularExpression) != nil }
            #expect(found.isEmpty, "\(library): \(found.map { "\($0.file): \($0.line)" })")
        }
    }
}
