import Testing

@testable import ImgwarmKit

/// The incremental tokenizer under the HAR reader: the same events whatever the chunks, strings
/// in pieces, errors at their byte offset (issue 33).
@Suite struct JSONStreamTests {
    /// The events of `text` fed `chunk` bytes at a time, strings joined, as short words.
    static func events(_ text: String, chunk: Int = 1 << 16) throws(JSONStream.SyntaxError) -> [String] {
        let bytes = Array(text.utf8)
        var stream = JSONStream()
        var out: [String] = []
        var string: [UInt8] = []
        let sink = { (event: JSONStream.Event) in
            switch event {
            case .objectStart: out.append("{")
            case .objectEnd: out.append("}")
            case .arrayStart: out.append("[")
            case .arrayEnd: out.append("]")
            case .stringStart: string = []
            case .stringBytes(let bytes): string += bytes
            case .stringEnd: out.append("\"" + String(decoding: string, as: UTF8.self) + "\"")
            case .number(let value): out.append("\(value)")
            case .bool(let value): out.append("\(value)")
            case .null: out.append("null")
            }
        }
        var start = 0
        while start < bytes.count {
            try stream.feed(bytes[start..<min(bytes.count, start + chunk)], sink)
            start += chunk
        }
        try stream.finish(sink)
        return out
    }

    @Test func tokensInAnyChunks() throws {
        let text = #" {"a": [1, -2.5e3, true, false, null], "b\u00e9": "x\"\\\/\n\ud83d\ude00y", "c": {}} "#
        let expected = [
            "{", "\"a\"", "[", "1.0", "-2500.0", "true", "false", "null", "]", "\"bé\"", "\"x\"\\/\n😀y\"", "\"c\"", "{",
            "}",
            "}",
        ]
        #expect(try Self.events(text) == expected)
        #expect(try Self.events(text, chunk: 1) == expected)
        #expect(try Self.events(text, chunk: 3) == expected)
    }

    @Test(arguments: [
        (#"{"a": 1"#, 7, "the JSON ends early (truncated?)"),
        (#"{"a" 1}"#, 5, "unexpected '1': expected ':' after a member name"),
        (#"[1,]"#, 3, "unexpected ']': expected a value"),
        (#"{"a": tru}"#, 9, "invalid literal (expected true)"),
        (#"["\x"]"#, 3, "invalid escape '\\x'"),
        (#"["\ud83d"]"#, 8, "unpaired surrogate in \\u escape"),
        (#"[01]"#, 1, "invalid number"),
        ("[\"a\u{1}\"]", 3, "control character in a string (escape it)"),
        (#"{} {}"#, 3, "unexpected '{': text after the JSON value"),
    ])
    func errorsNameTheirOffset(_ text: String, _ offset: Int, _ message: String) {
        for chunk in [1, 1 << 16] {
            #expect(throws: JSONStream.SyntaxError(offset: offset, message: message)) {
                try Self.events(text, chunk: chunk)
            }
        }
    }

    @Test func nestingIsLimited() {
        let deep = String(repeating: "[", count: JSONStream.maxDepth + 1)
        #expect(throws: JSONStream.SyntaxError(offset: JSONStream.maxDepth, message: "nested deeper than 64 levels")) {
            try Self.events(deep)
        }
    }
}
