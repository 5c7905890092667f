import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// Property-based fuzzing of the list parser, the URL rules, the JSON reader, the file-name rule
/// and the structural checks: random inputs from a fixed seed, and invariants that must hold for
/// every one of them (and no crash). CI runs a short pass; `scripts/fuzz.sh` runs a long one with
/// a fresh seed (`IMGWARM_FUZZ_ITERATIONS`, `IMGWARM_FUZZ_SEED`).
@Suite struct PropertyTests {
    static let environment = ProcessInfo.processInfo.environment
    static let iterations = Int(environment["IMGWARM_FUZZ_ITERATIONS"] ?? "") ?? 3000
    static let seed = UInt64(environment["IMGWARM_FUZZ_SEED"] ?? "") ?? 0x1A2B_3C4D

    static let fragments: [String] = [
        "http://", "https://", "HTTP://", "hTtPs://", "ftp://", "file://", "data:", "mailto:", "//", "/", "?", "#", ".",
        "..",
        ":", "@", "[", "]", "::1", "127.0.0.1", "example.com", "%", "%2E", "%zz", "%00", "%FF", "%C3%A9", " ", "\t",
        "\r",
        ".png", ".jpg", ".JPEG", ".tar.gz", "a", "Z", "0", "9", "~", "-", "_", ";", "=", "&", "+", "'", "(", ")", "*",
        ",",
        "é", "\u{200F}", "\u{202E}", "😀", "\u{0}", "\u{7F}", "\"", "\\", "{", "}", "<", ">", "|", "^", "`", "user:pw@",
    ]

    static func randomText(_ random: inout SplitMix64) -> String {
        var text = ""
        for _ in 0..<random.below(12) { text += random.pick(fragments) }
        return text
    }

    static func randomBytes(_ random: inout SplitMix64) -> [UInt8] {
        var bytes = Array(randomText(&random).utf8)
        for _ in 0..<random.below(4) {
            let position = random.below(bytes.count + 1)
            bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
        }
        return bytes
    }

    @Test func listLinesAndURLRules() {
        var random = SplitMix64(state: Self.seed)
        for _ in 0..<Self.iterations {
            let bytes = Self.randomBytes(&random)
            switch ListLine.parse(bytes[...], format: .plain, truncated: false) {
            case .ignored:
                let trimmed = URLRules.trim(bytes[...])
                #expect(trimmed.isEmpty || trimmed.first == UInt8(ascii: "#"))
            case .url(let key, _, let priority):
                #expect(priority == nil)
                // A key is always a valid absolute http(s) URI, trimmed, and ASCII.
                #expect((try? URLRules.validate(key).get()) != nil, "\(key)")
                #expect(key.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "\(key)")
                let uri = URIReference(key)
                #expect(["http", "https"].contains(uri?.scheme?.lowercased() ?? ""))
                #expect(uri?.host?.isEmpty == false)
            case .invalid(let reason, let text):
                #expect(!reason.isEmpty)
                #expect(text.count <= 201)
            case .file:
                Issue.record("a plain list has no JSON Lines \"file\" lines")
            case .unsupported:
                Issue.record("a plain list's line is never judged unsupported (only a HAR's entries are)")
            }
        }
    }

    @Test func jsonLines() {
        var random = SplitMix64(state: Self.seed ^ 0x55)
        let pieces = [
            "{", "}", "[", "]", ",", ":", "\"url\"", "\"priority\"", "\"high\"", "\"x\"", "1", "-2.5e3", "true", "null",
            " ", "\"\\u00e9\"", "\"\\ud83d\\ude00\"", "\"\\ud800\"", "\"http://a.com/x.png\"", "\\", "\"", "0", "01",
        ]
        for _ in 0..<Self.iterations {
            var text = ""
            for _ in 0..<random.below(14) { text += random.pick(pieces) }
            let bytes = Array(text.utf8)
            _ = JSONLine.parse(bytes[...])
            if case .url(let key, _, _) = ListLine.parse(bytes[...], format: .jsonl, truncated: false) {
                #expect((try? URLRules.validate(key).get()) != nil)
            }
        }
        // Deep nesting never overflows the stack.
        let deep = Array(String(repeating: "[", count: 100_000).utf8)
        if case .success = JSONLine.parse(deep[...]) { Issue.record("unbalanced input parsed") }
    }

    @Test func fileNames() {
        var random = SplitMix64(state: Self.seed ^ 0xAA)
        let hex = Set("0123456789abcdef")
        for _ in 0..<Self.iterations {
            let key = Self.randomText(&random)
            let name = SDFileName.forKey(key)
            let hash = name.prefix(32)
            #expect(hash.count == 32 && hash.allSatisfy(hex.contains))
            #expect(SDFileName.hash(of: key).hex == String(hash))
            if name.count > 32 {
                let dot = name.index(name.startIndex, offsetBy: 32)
                #expect(name[dot] == ".")
                let ext = name[name.index(after: dot)...]
                #expect(!ext.isEmpty)
                #expect(!ext.contains(":") && !ext.contains("\u{0}") && !ext.contains("/"))
                #expect(ext.utf16.count <= SDFileName.maxExtensionLength)
            }
            #expect(name == SDFileName.forKey(key), "deterministic")
        }
    }

    /// SplitMix64 damage to real images never crashes the checks; every cut is caught by the
    /// structural check of the formats that have an end marker or a declared length; and a size
    /// the header declares is never negative.
    @Test func structureAndSizesOfDamagedImages() throws {
        var random = SplitMix64(state: Self.seed ^ 0xF0)
        let images = try Fixtures.validImages()
        let names = images.keys.sorted()
        // Every intact fixture passes, so a failure below is the damage's doing.
        for (name, data) in images {
            let format = data.withUnsafeBytes {
                ImageFormat.sniff(UnsafeRawBufferPointer(rebasing: $0.prefix(ImageFormat.sniffLength)))
            }
            #expect(format != nil, "\(name)")
            if let format { #expect(data.withUnsafeBytes { StructureCheck.check(format, $0) } == nil, "\(name)") }
        }
        var cutsChecked = 0
        for _ in 0..<max(200, Self.iterations / 10) {
            var bytes = [UInt8](images[random.pick(names)]!)
            let cut = random.below(3) == 0
            switch cut ? 0 : 1 + random.below(2) {
            case 0: bytes = Array(bytes.prefix(random.below(bytes.count)))
            case 1:
                for _ in 0..<(1 + random.below(8)) where !bytes.isEmpty {
                    bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next())
                }
            default:
                let at = random.below(bytes.count)
                bytes.insert(
                    contentsOf: (0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
            }
            bytes.withUnsafeBytes { raw in
                guard
                    let format = ImageFormat.sniff(
                        UnsafeRawBufferPointer(rebasing: raw.prefix(ImageFormat.sniffLength)))
                else { return }
                if let size = DeclaredSize.read(format, raw) { #expect(size.width >= 0 && size.height >= 0) }
                let failure = StructureCheck.check(format, raw)
                if cut && [.png, .jpeg, .gif, .webp, .bmp].contains(format) {
                    cutsChecked += 1
                    #expect(failure != nil, "a \(format) cut to \(raw.count) bytes passed the structural check")
                }
            }
        }
        #expect(cutsChecked > 10, "the cuts were exercised")
    }
}
