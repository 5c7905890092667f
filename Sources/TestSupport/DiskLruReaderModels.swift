import Foundation

/// Readers of a DiskLruCache journal written for the tests from the libraries' own sources, not
/// from imgwarm's writer (this target does not see ImgwarmKit): Glide v5.0.9
/// `third_party/disklrucache/.../DiskLruCache.java` with `StrictLineReader.java`, and Coil 3.5.0
/// `coil-core/.../coil3/disk/DiskLruCache.kt` (Coil 2.7.0's `coil-base/.../coil/disk/DiskLruCache.kt`
/// reads the same way). Each returns the entries the library holds after `readJournal` and
/// `processJournal`, least recently used first, or throws where the library would delete the folder.
public enum DiskLruReaderModel: Sendable {
    /// Glide: US-ASCII lines (`StrictLineReader`), Java `String.split(" ")` for the lengths.
    case glide
    /// Coil 2 and 3: UTF-8 lines (Okio's `readUtf8LineStrict`), Kotlin `split(' ')`.
    case coil

    public struct Corrupt: Error, CustomStringConvertible {
        public var description: String
    }

    public struct Entry: Equatable, Sendable {
        public var lengths: [Int64]
        public var readable: Bool
    }

    public struct Opened: Sendable {
        /// Keys, least recently used first.
        public var order: [String]
        public var entries: [String: Entry]
        /// The journal ended in an unterminated line (the library rewrites it).
        public var hadUnterminatedLine: Bool
        /// Operation lines read.
        public var lineCount: Int
    }

    /// Reads the journal at `folder/journal` (or `journal.bkp` when there is no journal, as both
    /// libraries do at open); an empty cache when there is neither.
    public func open(folder: String, appVersion: Int, valueCount: Int) throws -> Opened {
        for name in ["journal", "journal.bkp"] {
            if let data = FileManager.default.contents(atPath: folder + "/" + name) {
                return try read([UInt8](data), appVersion: appVersion, valueCount: valueCount)
            }
        }
        return Opened(order: [], entries: [:], hadUnterminatedLine: false, lineCount: 0)
    }

    public func read(_ bytes: [UInt8], appVersion: Int, valueCount: Int) throws -> Opened {
        var lines: [String] = []
        var current: [UInt8] = []
        for byte in bytes {
            if byte == 10 {
                if current.last == 13 { current.removeLast() }
                lines.append(decode(current))
                current = []
            } else {
                current.append(byte)
            }
        }
        let unterminated = !current.isEmpty
        guard lines.count >= 5 else { throw Corrupt(description: "EOF in the header") }
        let header = Array(lines[0..<5])
        guard header == ["libcore.io.DiskLruCache", "1", "\(appVersion)", "\(valueCount)", ""] else {
            throw Corrupt(description: "unexpected journal header: \(header)")
        }
        var order: [String] = []
        var entries: [String: (entry: Entry, editing: Bool)] = [:]
        func touch(_ key: String) {
            if let index = order.firstIndex(of: key) { order.remove(at: index) }
            order.append(key)
        }
        for line in lines.dropFirst(5) {
            let chars = Array(line)
            guard let firstSpace = chars.firstIndex(of: " ") else { throw Corrupt(description: "line: \(line)") }
            let keyBegin = firstSpace + 1
            let secondSpace = chars[keyBegin...].firstIndex(of: " ")
            let key = String(chars[keyBegin..<(secondSpace ?? chars.count)])
            let op = String(chars[..<firstSpace])
            if secondSpace == nil && op == "REMOVE" {
                entries[key] = nil
                order.removeAll { $0 == key }
                continue
            }
            var value = entries[key] ?? (Entry(lengths: Array(repeating: 0, count: valueCount), readable: false), false)
            touch(key)
            if let secondSpace, op == "CLEAN" {
                let parts = split(String(chars[(secondSpace + 1)...]))
                guard parts.count == valueCount else { throw Corrupt(description: "lengths: \(line)") }
                var lengths: [Int64] = []
                for part in parts {
                    guard let length = parseLong(part) else { throw Corrupt(description: "length: \(line)") }
                    lengths.append(length)
                }
                value.entry.readable = true
                value.editing = false
                value.entry.lengths = lengths
            } else if secondSpace == nil && op == "DIRTY" {
                value.editing = true
            } else if secondSpace == nil && op == "READ" {
            } else {
                entries[key] = value
                throw Corrupt(description: "unexpected journal line: \(line)")
            }
            entries[key] = value
        }
        // processJournal: entries whose edit never finished are dropped (their files deleted).
        let kept = order.filter { entries[$0]?.editing == false }
        var result: [String: Entry] = [:]
        for key in kept { result[key] = entries[key]!.entry }
        return Opened(order: kept, entries: result, hadUnterminatedLine: unterminated, lineCount: lines.count - 5)
    }

    /// True when the library's `get` returns the entry: readable, and every value file exists.
    public func hits(_ key: String, in opened: Opened, folder: String, valueCount: Int) -> Bool {
        guard let entry = opened.entries[key], entry.readable else { return false }
        if self == .coil && !DiskLruReaderModel.isLegalCoilKey(key) { return false }
        return (0..<valueCount).allSatisfy { FileManager.default.fileExists(atPath: "\(folder)/\(key).\($0)") }
    }

    /// Coil's `LEGAL_KEY_PATTERN`, `[a-z0-9_-]{1,120}`, which `get` and `edit` require.
    public static func isLegalCoilKey(_ key: String) -> Bool {
        (1...120).contains(key.utf8.count)
            && key.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 45 }
    }

    private func decode(_ bytes: [UInt8]) -> String {
        switch self {
        case .glide: return String(bytes.map { $0 < 128 ? Character(UnicodeScalar($0)) : "\u{FFFD}" })
        case .coil: return String(decoding: bytes, as: UTF8.self)
        }
    }

    private func split(_ text: String) -> [String] {
        switch self {
        case .coil:
            return text.components(separatedBy: " ")
        case .glide:
            // Java: no match gives the whole string; otherwise trailing empty strings are removed.
            guard text.contains(" ") else { return [text] }
            var parts = text.components(separatedBy: " ")
            while let last = parts.last, last.isEmpty { parts.removeLast() }
            return parts
        }
    }

    /// `Long.parseLong` (Kotlin's `toLong` on the JVM): sign, decimal digits, 64 bits.
    private func parseLong(_ text: String) -> Int64? {
        guard let first = text.first, first != "+" || text.count > 1 else { return nil }
        let digits = first == "+" || first == "-" ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.unicodeScalars.allSatisfy({ (48...57).contains($0.value) }) else { return nil }
        return Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text)
    }
}
