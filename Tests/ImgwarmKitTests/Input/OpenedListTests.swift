import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// A list is a HAR by its content under `auto`, whatever its name: first non-blank byte `{`,
/// first key `"log"` (issue 48, item 2).
@Suite struct OpenedListTests {
    @Test(arguments: [
        ("{\"log\": {\"entries\": []}}", true as Bool?), ("\u{FEFF}\n  {\n  \"log\" : {", true),
        ("{\"url\": \"https://a.example/x.png\"}", false), ("https://a.example/x.png\n", false),
        ("# {\"log\"\n", false), ("{}", false), ("{\"logs\": 1}", false), ("{\"lo", nil), ("  ", nil), ("{", nil),
        ("\u{FEFF}", nil),
    ])
    func tellsAHARByItsStart(text: String, isHAR: Bool?) {
        #expect(OpenedList.isHAR(Array(text.utf8)[...], ended: false) == isHAR, "\(text)")
        // At the end of the list, what cannot tell is not a HAR.
        #expect(OpenedList.isHAR(Array(text.utf8)[...], ended: true) == (isHAR ?? false), "\(text)")
    }

    /// `capture.json`, `capture.txt`, `capture.jsonl` holding a HAR are read as one: entries are
    /// lines, numbered by entry; a JSON Lines list stays JSON Lines.
    @Test(arguments: ["capture.json", "capture.txt", "capture.jsonl", "capture"])
    func aHARWhateverItsName(name: String) throws {
        let temp = try TemporaryFolder()
        let list = try temp.write(name, try Fixtures.data("har/chrome.har"))
        let opened = try ListIngest.open([ListSource(path: list)])
        #expect(opened.map(\.source.format) == [.har])
        #expect(opened[0].source.place(4) == "\(list) entry 4")
        var lines: [Int] = []
        try ListIngest.read(opened[0], index: 0) { (line, _) throws(Never) -> Bool in
            lines.append(line)
            return true
        }
        #expect(lines == [2, 3, 5, 6, 8, 9], "the chrome capture's image entries")
    }

    @Test func otherListsKeepTheirNamesRules() throws {
        let temp = try TemporaryFolder()
        let jsonl = try temp.write("feed.jsonl", Data("{\"url\": \"https://a.example/x.png\"}\n".utf8))
        let plain = try temp.write("feed.txt", Data("\n\nhttps://a.example/x.png\n".utf8))
        let named = try temp.write("named.har", Data("{\"log\": {\"entries\": []}}".utf8))
        let forced = try temp.write("forced.json", try Fixtures.data("har/chrome.har"))
        let opened = try ListIngest.open([
            ListSource(path: jsonl), ListSource(path: plain), ListSource(path: named),
            ListSource(path: forced, format: .plain),
        ])
        #expect(opened.map(\.source.format) == [.auto, .auto, .auto, .plain])
        #expect(opened.map(\.source.effectiveFormat) == [.jsonl, .plain, .har, .plain])
        // The bytes read to tell are read again by the list's reader.
        var urls: [String] = []
        for (index, list) in opened.prefix(2).enumerated() {
            try ListIngest.read(list, index: index) { (_, parsed) throws(Never) -> Bool in
                if case .url(let url, _, _) = parsed { urls.append(url) }
                return true
            }
        }
        #expect(urls == ["https://a.example/x.png", "https://a.example/x.png"])
        for list in opened.dropFirst(2) { list.descriptor.close() }
    }
}
