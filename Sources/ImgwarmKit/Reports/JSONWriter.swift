/// Writes JSON text incrementally, in the order the caller gives keys.
///
/// Reports can hold a million entries, so they are written as they happen rather than built as
/// one value and encoded at the end; the key order of every report is fixed and documented in
/// `docs/report.schema.json`. Output is compact, or indented with two spaces when `pretty`.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private let pretty: Bool
    /// One entry per open container: whether something was already written in it.
    private var hasMembers: [Bool] = []
    private var afterKey = false

    public init(pretty: Bool = false, capacity: Int = 4096) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// Hands out what was written so far and clears the buffer (for streaming to a file).
    public mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    public var isEmpty: Bool { bytes.isEmpty }

    // MARK: Structure

    public mutating func beginObject() {
        beginValue()
        bytes.append(UInt8(ascii: "{"))
        hasMembers.append(false)
    }
    public mutating func endObject() { endContainer(UInt8(ascii: "}")) }
    public mutating func beginArray() {
        beginValue()
        bytes.append(UInt8(ascii: "["))
        hasMembers.append(false)
    }
    public mutating func endArray() { endContainer(UInt8(ascii: "]")) }

    /// Writes `"name":` in the current object; the next value written belongs to it.
    public mutating func key(_ name: String) {
        separate()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        beginValue()
        appendString(value)
    }
    public mutating func int<T: BinaryInteger>(_ value: T) {
        beginValue()
        bytes.append(contentsOf: String(value).utf8)
    }
    public mutating func bool(_ value: Bool) {
        beginValue()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }
    public mutating func null() {
        beginValue()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes `json`, one complete value encoded by another compact writer.
    public mutating func raw(_ json: [UInt8]) {
        beginValue()
        bytes.append(contentsOf: json)
    }

    /// A number with at most `digits` fraction digits (durations, rates).
    public mutating func double(_ value: Double, digits: Int = 3) {
        beginValue()
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        var text = Quantities.formatDecimal(value, digits: digits)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func string(_ value: String?) { if let value { string(value) } else { null() } }
    public mutating func int<T: BinaryInteger>(_ value: T?) { if let value { int(value) } else { null() } }

    // Key + value shorthands.
    public mutating func field(_ name: String, _ value: String?) {
        key(name)
        string(value)
    }
    public mutating func field<T: BinaryInteger>(_ name: String, _ value: T?) {
        key(name)
        int(value)
    }
    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }
    public mutating func field(_ name: String, _ value: Double, digits: Int = 3) {
        key(name)
        double(value, digits: digits)
    }

    /// The opening every imgwarm document shares: schema version, tool, command, cache folder
    /// (none for a document of several caches).
    public mutating func reportHeader(
        schemaVersion: Int, command: String, cacheFolder: String?, cacheFormat: String? = nil
    ) {
        field("schemaVersion", schemaVersion)
        key("tool")
        beginObject()
        field("name", "imgwarm")
        field("version", ImgwarmVersion.current)
        endObject()
        field("command", command)
        if let cacheFolder { field("cacheFolder", cacheFolder) }
        // The format whose folder this is (docs/cache-formats.md), for the reports that have it.
        if let cacheFormat { field("cacheFormat", cacheFormat) }
    }

    /// The document of a command run on several formats' folders (`--cache-format a,b`):
    /// `{"schemaVersion", "tool", "command", "caches": [...]}`, `caches` holding the document the
    /// command writes for one folder, one a format, in the order given.
    public static func severalCaches(
        schemaVersion: Int, command: String, documents: [[UInt8]], pretty: Bool = true
    ) -> [UInt8] {
        var writer = JSONWriter(pretty: pretty)
        writer.beginObject()
        writer.reportHeader(schemaVersion: schemaVersion, command: command, cacheFolder: nil)
        writer.key("caches")
        writer.beginArray()
        for document in documents {
            var document = document
            while document.last == UInt8(ascii: "\n") { document.removeLast() }
            guard pretty else {
                writer.raw(document)
                continue
            }
            // Indented as an item of `caches` (a JSON text breaks lines only between tokens).
            writer.raw(document.flatMap { $0 == UInt8(ascii: "\n") ? Array("\n    ".utf8) : [$0] })
        }
        writer.endArray()
        writer.endObject()
        return writer.take()
    }

    /// `totals.shard` of the prefetch and verify reports: null without `--shard`, else
    /// `{"index": K, "count": N, "scheduler": null}` for a `K/N` given, or the scheduler `--shard
    /// auto` read them from: `{"id": "slurm", "name": "Slurm job array", "variables": {...}}`.
    public mutating func shardField(_ shard: Shard?) {
        key("shard")
        guard let shard else { return null() }
        beginObject()
        field("index", shard.index)
        field("count", shard.count)
        key("scheduler")
        if let origin = shard.origin {
            beginObject()
            field("id", origin.scheduler.rawValue)
            field("name", origin.scheduler.name)
            key("variables")
            beginObject()
            for variable in origin.variables { field(variable.name, variable.value) }
            endObject()
            endObject()
        } else {
            null()
        }
        endObject()
    }

    // MARK: Internals

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        separate()
    }

    private mutating func separate() {
        guard !hasMembers.isEmpty else { return }
        if hasMembers[hasMembers.count - 1] { bytes.append(UInt8(ascii: ",")) }
        hasMembers[hasMembers.count - 1] = true
        newline()
    }

    private mutating func endContainer(_ close: UInt8) {
        let hadMembers = hasMembers.removeLast()
        if hadMembers { newline() }
        bytes.append(close)
        if hasMembers.isEmpty && pretty { bytes.append(UInt8(ascii: "\n")) }
    }

    private mutating func newline() {
        guard pretty else { return }
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<hasMembers.count { bytes.append(contentsOf: [0x20, 0x20]) }
    }

    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                ])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
