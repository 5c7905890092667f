/// Reads a HAR capture (HAR 1.2) as a stream and hands over its entries one at a time: bytes go
/// in as they are read (`feed`), through `JSONStream`, and each `log.entries[]` object becomes a
/// `HAREntry` (or a reason it is not one) as soon as it closes. Only the members imgwarm uses are
/// kept; bodies go to `HARBodies`, so memory does not grow with the capture.
struct HARReader {
    /// What one entry of `log.entries` became.
    enum Item: Equatable {
        /// An entry and the first bytes of its body, decoded (for `HAREntry.isImage`).
        case entry(HAREntry, head: [UInt8])
        /// Not usable: its number and why (`request.url must be a string, not a number`).
        case invalid(number: Int, reason: String)
    }

    /// The longest string kept (a URL, a header): longer ones make the entry invalid.
    static let maxStringLength = URLRules.maxLineLength
    /// Headers kept per request or response; more are dropped.
    static let maxHeaders = 256
    /// Bytes of header names and values kept per entry; past them, headers are dropped (a
    /// hostile capture's entry costs no more).
    static let maxHeaderBytes = 1 << 16

    private enum Field: Equatable {
        case url, method, status, redirectURL, mimeType, size, text, encoding, started
        case httpVersion, statusText, time
        case headerName, headerValue
    }

    private var stream = JSONStream()
    let bodies: HARBodies
    /// The key (`"[]"` for an array's element) under which each open container sits.
    private var path: [String] = []
    /// The last member name read in the innermost object (nil in an array).
    private var key: String?
    private var inObject: [Bool] = []
    private var collecting: Field?
    private var collectingIsKey = false
    private var text: [UInt8] = []
    private var textTooLong = false
    /// Entries begun (the number of the one being read).
    private(set) var entriesSeen = 0
    private var sawEntries = false
    private var entriesProblem: String?
    private var current: HAREntry?
    private var problems: [String] = []
    private var sawRequest = false
    private var sawResponse = false
    private var header = HAREntry.Header(name: "", value: "")
    /// The header being read had a name or value too long to keep.
    private var headerDropped = false
    private var headerBytes = 0
    private var encoding = ""
    private var bodyResult: (body: HAREntry.Body?, head: [UInt8])?
    private var inBody = false
    private var sawText = false
    /// Items completed by the event being handled.
    private var ready: [Item] = []
    private static let entriesPath = ["", "log", "entries"]

    init(bodies: HARBodies) {
        self.bodies = bodies
    }

    /// Reads `chunk`, handing over every entry it completes.
    mutating func feed(_ chunk: ArraySlice<UInt8>, _ item: (Item) -> Void) throws(HARList.ReadError) {
        var failure: HARList.ReadError?
        // The tokenizer is taken out while it calls back into `self`.
        var tokenizer = stream
        defer { stream = tokenizer }
        do throws(JSONStream.SyntaxError) {
            try tokenizer.feed(chunk) { event in
                guard failure == nil else { return }
                do throws(HARBodies.ScratchError) { try handle(event) } catch { failure = .scratch(error) }
                for done in ready { item(done) }
                ready.removeAll(keepingCapacity: true)
            }
        } catch {
            throw .syntax(error)
        }
        if let failure { throw failure }
    }

    /// Ends the document: a syntax error when it was cut short, or a problem with `log.entries`.
    mutating func finish() throws(HARList.ReadError) {
        do throws(JSONStream.SyntaxError) { try stream.finish { _ in } } catch { throw .syntax(error) }
        if let entriesProblem { throw .structure(entriesProblem) }
        if !sawEntries { throw .structure("the HAR has no log.entries array") }
    }

    private mutating func handle(_ event: JSONStream.Event) throws(HARBodies.ScratchError) {
        switch event {
        case .stringStart(let isKey):
            collectingIsKey = isKey
            text.removeAll(keepingCapacity: true)
            textTooLong = false
            if isKey {
                collecting = nil
                return
            }
            notContainer("a string")
            let field = self.field(for: nameOfValue)
            if field == .text {
                inBody = true
                sawText = true
                bodies.begin()
                collecting = nil
            } else {
                collecting = field
            }
        case .stringBytes(let bytes):
            if inBody {
                try bodies.append(bytes)
            } else if collectingIsKey || collecting != nil {
                let limit = collectingIsKey ? 256 : HARReader.maxStringLength
                if text.count + bytes.count > limit {
                    textTooLong = true
                } else {
                    text.append(contentsOf: bytes)
                }
            }
        case .stringEnd:
            if collectingIsKey {
                key = String(decoding: text, as: UTF8.self)
                collectingIsKey = false
            } else if inBody {
                inBody = false
            } else if let field = collecting {
                collecting = nil
                store(field)
            }
        case .objectStart, .arrayStart:
            let name = nameOfValue
            let isObject: Bool
            if case .objectStart = event { isObject = true } else { isObject = false }
            opened(name, isObject: isObject)
            path.append(name)
            inObject.append(isObject)
            key = nil
        case .objectEnd, .arrayEnd:
            let name = path.removeLast()
            inObject.removeLast()
            key = nil
            try closed(name)
        case .number(let value):
            scalar(typeName: "a number", number: value)
        case .bool:
            scalar(typeName: "a boolean", number: nil)
        case .null:
            scalar(typeName: "null", number: nil)
        }
    }

    /// The name under which the value starting now sits: its member name, or `[]` in an array.
    private var nameOfValue: String {
        if inObject.isEmpty { return "" }
        return inObject.last == true ? (key ?? "") : "[]"
    }

    /// A value that is not a container where one is expected: `log.entries`, an entry, the root.
    private mutating func notContainer(_ typeName: String) {
        if path.isEmpty {
            entriesProblem = "the HAR is not a JSON object"
        } else if path == ["", "log"] && nameOfValue == "entries" {
            sawEntries = true
            entriesProblem = "log.entries must be an array, not \(typeName)"
        } else if path == HARReader.entriesPath {
            entriesSeen += 1
            ready.append(.invalid(number: entriesSeen, reason: "the entry is not an object but \(typeName)"))
        }
    }

    /// The path inside the entry being read of a value named `name`, nil outside any entry.
    private func entryPath(_ name: String) -> ArraySlice<String>? {
        guard current != nil, path.count >= 4 else { return nil }
        return (path + [name]).dropFirst(4)
    }

    private func field(for name: String) -> Field? {
        guard let relative = entryPath(name) else { return nil }
        switch Array(relative) {
        case ["request", "url"]: return .url
        case ["request", "method"]: return .method
        case ["response", "status"]: return .status
        case ["response", "redirectURL"]: return .redirectURL
        case ["response", "content", "mimeType"]: return .mimeType
        case ["response", "content", "size"]: return .size
        case ["response", "content", "text"]: return .text
        case ["response", "content", "encoding"]: return .encoding
        case ["startedDateTime"]: return .started
        case ["time"]: return .time
        case ["response", "httpVersion"]: return .httpVersion
        case ["response", "statusText"]: return .statusText
        case ["request", "headers", "[]", "name"], ["response", "headers", "[]", "name"]: return .headerName
        case ["request", "headers", "[]", "value"], ["response", "headers", "[]", "value"]: return .headerValue
        default: return nil
        }
    }

    private mutating func opened(_ name: String, isObject: Bool) {
        if path.isEmpty {
            if !isObject { entriesProblem = "the HAR is not a JSON object" }
        } else if path == ["", "log"] && name == "entries" {
            sawEntries = true
            if isObject { entriesProblem = "log.entries must be an array, not an object" }
        } else if path == HARReader.entriesPath {
            entriesSeen += 1
            guard isObject else {
                problems = ["the entry is not an object but an array"]
                return
            }
            current = HAREntry(number: entriesSeen)
            problems = []
            sawRequest = false
            sawResponse = false
            sawText = false
            encoding = ""
            bodyResult = nil
            headerBytes = 0
        } else if let relative = entryPath(name) {
            if relative == ["request"] { sawRequest = isObject }
            if relative == ["response"] { sawResponse = isObject }
            if relative.count == 3 && relative.dropLast().last == "headers" {
                header = HAREntry.Header(name: "", value: "")
                headerDropped = false
            }
        }
    }

    /// The container `name` just closed; `path` is now that of the one it sat in.
    private mutating func closed(_ name: String) throws(HARBodies.ScratchError) {
        if path == HARReader.entriesPath {
            defer { problems = [] }
            guard let entry = current else {
                if !problems.isEmpty {
                    ready.append(.invalid(number: entriesSeen, reason: problems.joined(separator: "; ")))
                }
                return
            }
            if !sawRequest { problems.append("the entry has no request object") }
            if !sawResponse { problems.append("the entry has no response object") }
            if sawRequest && entry.url.isEmpty && !problems.contains(where: { $0.hasPrefix("request.url") }) {
                problems.append("request.url is missing")
            }
            current = nil
            if problems.isEmpty {
                ready.append(.entry(entry, head: bodyResult?.head ?? []))
            } else {
                ready.append(.invalid(number: entry.number, reason: problems.joined(separator: "; ")))
            }
            return
        }
        guard var entry = current, let relative = entryPath(name) else { return }
        if relative == ["response", "content"] {
            if sawText {
                let result = try bodies.finish(base64: encoding.lowercased() == "base64")
                bodyResult = result
                entry.body = result.body
                if result.body == nil && bodies.keepsBodies {
                    entry.bodyProblem = "response.content.text is not valid base64"
                }
                current = entry
            }
        } else if relative.count == 3 && relative.dropLast().last == "headers" {
            let size = header.name.utf8.count + header.value.utf8.count
            guard !headerDropped, !header.name.isEmpty, headerBytes + size <= HARReader.maxHeaderBytes else { return }
            headerBytes += size
            if relative.first == "request" && entry.requestHeaders.count < HARReader.maxHeaders {
                entry.requestHeaders.append(header)
            } else if relative.first == "response" && entry.responseHeaders.count < HARReader.maxHeaders {
                entry.responseHeaders.append(header)
            }
            current = entry
        }
    }

    private mutating func store(_ field: Field) {
        guard var entry = current else { return }
        let name = fieldName(field)
        if field == .headerName || field == .headerValue,
            textTooLong || String(validating: text, as: UTF8.self) == nil
        {
            headerDropped = true  // a header that cannot be kept is dropped, the entry stays good
            return
        }
        if textTooLong {
            problems.append("\(name) is longer than \(HARReader.maxStringLength) bytes")
            return
        }
        guard let value = String(validating: text, as: UTF8.self) else {
            problems.append("\(name) is not valid UTF-8")
            return
        }
        switch field {
        case .url: entry.url = value
        case .method: entry.method = value
        case .redirectURL: entry.redirectURL = value
        case .mimeType: entry.mimeType = value
        case .encoding: encoding = value
        case .started: entry.startedDateTime = value
        case .httpVersion: entry.httpVersion = value
        case .statusText: entry.statusText = value
        case .headerName: header.name = value
        case .headerValue: header.value = value
        case .status, .size, .text: problems.append("\(name) must be a number, not a string")
        case .time: break  // an exporter's quirk: the timing is only a hint for offline seeds
        }
        current = entry
    }

    private mutating func scalar(typeName: String, number: Double?) {
        notContainer(typeName)
        guard var entry = current, let field = field(for: nameOfValue) else { return }
        switch field {
        case .status:
            guard let number, let status = Int(exactly: number) else {
                problems.append("response.status must be a number, not \(typeName)")
                return
            }
            entry.status = status
        case .size:
            if let number { entry.size = Int(exactly: number) }
        case .time:
            if let number, number.isFinite, number >= 0 { entry.time = number }
        case .url, .method: problems.append("\(fieldName(field)) must be a string, not \(typeName)")
        default: break  // A null redirectURL, mimeType or text: as if absent.
        }
        current = entry
    }

    private func fieldName(_ field: Field) -> String {
        switch field {
        case .url: return "request.url"
        case .method: return "request.method"
        case .status: return "response.status"
        case .redirectURL: return "response.redirectURL"
        case .mimeType: return "response.content.mimeType"
        case .size: return "response.content.size"
        case .text: return "response.content.text"
        case .encoding: return "response.content.encoding"
        case .started: return "startedDateTime"
        case .time: return "time"
        case .httpVersion: return "response.httpVersion"
        case .statusText: return "response.statusText"
        case .headerName: return "a header's name"
        case .headerValue: return "a header's value"
        }
    }
}
