import ImgwarmSystem

/// A netrc file checked before any download: one libcurl cannot parse makes every transfer fail
/// (`CURLE_READ_ERROR`, ".netrc parser error"), which would put every URL on the blacklist.
///
/// The syntax is libcurl's (7.88): tokens are separated by blanks; a token starting with `#`
/// starts a comment to the end of the line; a token starting with `"` is a quoted string with
/// backslash escapes, and must end with `"` on the same line; `macdef NAME` starts a macro whose
/// body, skipped, runs to the next empty line. Keywords libcurl ignores (unknown words, a
/// `login` with no value) are ignored here too. Only an unclosed quoted string is an error to
/// libcurl; this check finds it on any line, where libcurl stops reading at the first entry that
/// gives the credentials of the host it looks for.
public enum NetrcFile {
    /// Why a netrc file cannot be used: unreadable, or not parsable (with the line number).
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var path: String
        public var line: Int?
        public var reason: String

        public var description: String {
            "\(path)\(line.map { ":\($0)" } ?? ""): \(reason)"
        }
    }

    /// Reads the file at `path` and checks its syntax.
    public static func check(path: String) throws(Problem) {
        let bytes: [UInt8]
        do {
            bytes = try readAll(path)
        } catch {
            throw Problem(path: path, line: nil, reason: error.description)
        }
        if let line = firstUnclosedQuote(in: bytes) {
            throw Problem(
                path: path, line: line,
                reason: "a quoted string (starting with \") is not closed on its line, so libcurl rejects the file")
        }
    }

    /// What makes the file at `path` unsafe to take credentials from, or nil: writable by its
    /// group or by others, or owned by a user other than this one and root (as ssh warns of its
    /// files). Anyone who can change the file can send the credentials to another host.
    public static func unsafeOwnership(path: String) -> String? {
        guard let status = try? FileSystem.status(ofPath: path) else { return nil }
        let mode = "0" + String(status.permissions & 0o7777, radix: 8)
        if status.permissions & 0o022 != 0 {
            let who = status.permissions & 0o002 != 0 ? "anyone" : "its group"
            return
                "the netrc file \(path) is writable by \(who) (mode \(mode)): whoever changes it can send your credentials to another host; run chmod go-w \(path)"
        }
        if status.owner != FileSystem.userID && status.owner != 0 {
            return
                "the netrc file \(path) belongs to another user (uid \(status.owner)), who can change the credentials it gives and the hosts they go to"
        }
        return nil
    }

    /// The line number (1-based) of the first quoted string that does not close on its line.
    static func firstUnclosedQuote(in bytes: [UInt8]) -> Int? {
        var inMacro = false
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            lineNumber += 1
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.count
            // libcurl reads lines with fgets and stops at a NUL byte, as C strings do.
            let line = bytes[start..<end].prefix { $0 != 0 }
            start = end + 1
            if inMacro {
                // A macro body ends at an empty line (libcurl: one starting with \n or \r).
                if line.isEmpty || line.first == UInt8(ascii: "\r") { inMacro = false }
                continue
            }
            switch scan(line, startsMacro: &inMacro) {
            case .unclosedQuote: return lineNumber
            case .fine: continue
            }
        }
        return nil
    }

    private enum LineVerdict { case fine, unclosedQuote }

    /// Splits one line into tokens as libcurl does; `startsMacro` is set when `macdef` is read
    /// where a keyword is expected.
    private static func scan(_ line: ArraySlice<UInt8>, startsMacro: inout Bool) -> LineVerdict {
        var index = line.startIndex
        var expectingValue = false
        while index < line.endIndex {
            while index < line.endIndex, line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t") {
                index += 1
            }
            guard index < line.endIndex, line[index] != UInt8(ascii: "#") else { return .fine }
            var token: ArraySlice<UInt8>
            if line[index] == UInt8(ascii: "\"") {
                var position = index + 1
                var escape = false
                var closed = false
                while position < line.endIndex {
                    let byte = line[position]
                    position += 1
                    if escape {
                        escape = false
                    } else if byte == UInt8(ascii: "\\") {
                        escape = true
                    } else if byte == UInt8(ascii: "\"") {
                        closed = true
                        break
                    }
                }
                // The newline fgets keeps is part of the line libcurl scans: a string still open
                // there (or escaping it) is unclosed.
                guard closed else { return .unclosedQuote }
                token = line[index..<position]
                index = position
            } else {
                let end = line[index...].firstIndex(where: isSpace) ?? line.endIndex
                token = line[index..<end]
                index = end
            }
            // Keywords that take a value; `macdef` where a keyword is expected starts a macro.
            let word = String(decoding: token, as: UTF8.self).lowercased()
            if expectingValue {
                expectingValue = false
            } else if word == "macdef" {
                startsMacro = true
                expectingValue = true
            } else if ["machine", "login", "password", "account"].contains(word) {
                expectingValue = true
            }
            if index < line.endIndex { index += 1 }
        }
        return .fine
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func readAll(_ path: String) throws(SystemError) -> [UInt8] {
        let descriptor = try FileDescriptor.openForReading(path)
        defer { descriptor.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try descriptor.read(into: &buffer)
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }
}
