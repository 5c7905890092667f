/// SDWebImage 5.21's `SDDiskCacheFileNameForKey`: the file name a cache key is stored under.
///
/// The rule (docs/cache-contract.md §2), implemented as a pure function with golden tests:
/// 1. MD5 of the key's UTF-8 bytes up to the first NUL, as 32 lower-case hex digits;
/// 2. an extension taken from the percent-decoded URL path when the key parses as a URL with a
///    hierarchical path, otherwise from the raw key string used as a file path;
/// 3. NUL and `:` removed from the extension, which is dropped when it is longer than 222 UTF-16
///    code units (`NAME_MAX` 255 − 32 hex digits − 1 dot);
/// 4. name = hash, plus `.` + extension when that is not empty.
public enum SDFileName {
    /// The longest extension SDWebImage appends, in UTF-16 code units.
    public static let maxExtensionLength = 222

    /// The disk cache file name for `key`.
    public static func forKey(_ key: String) -> String {
        let digest = hash(of: key)
        let ext = fileExtension(ofKey: key)
        let hexLength = 32
        let total = ext.isEmpty ? hexLength : hexLength + 1 + ext.utf8.count
        return String(unsafeUninitializedCapacity: total) { out in
            digest.writeHex(into: out.baseAddress!)
            if !ext.isEmpty {
                out[hexLength] = UInt8(ascii: ".")
                var position = hexLength + 1
                for byte in ext.utf8 {
                    out[position] = byte
                    position += 1
                }
            }
            return total
        }
    }

    /// True when `name` has the shape of a name `forKey` produces: 32 lower-case hex digits,
    /// optionally followed by `.` and a non-empty extension holding no `.`, `/`, `:`, space or
    /// NUL. `clean` deletes only in a folder whose cache files all have this shape.
    public static func isCacheFileName(_ name: String) -> Bool {
        isCacheFileName(bytes: name.utf8)
    }

    /// `isCacheFileName` of a name's UTF-8 bytes. Allocates nothing: `clean` asks this of every
    /// file of folders of millions.
    static func isCacheFileName<Bytes: Sequence<UInt8>>(bytes: Bytes) -> Bool {
        var index = 0
        for byte in bytes {
            switch index {
            case 0..<32:
                guard
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            case 32:
                guard byte == UInt8(ascii: ".") else { return false }
            default:
                switch byte {
                case UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: " "), 0: return false
                default: break
                }
            }
            index += 1
        }
        return index == 32 || index > 33
    }

    /// MD5 of the key's UTF-8 bytes, up to (not including) the first NUL byte.
    public static func hash(of key: String) -> MD5.Digest {
        var key = key
        return key.withUTF8 { bytes in
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return MD5.digest(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[0..<end])))
        }
    }

    /// The extension SDWebImage appends for `key`, already cleaned (NUL and `:` removed) and
    /// empty when it would be too long.
    public static func fileExtension(ofKey key: String) -> String {
        var ext: Substring
        if let uri = URIReference(key), uri.isHierarchical {
            if uri.path.utf8.contains(UInt8(ascii: "%")) {
                guard let path = percentDecoded(uri.path) else { return "" }
                ext = pathExtension(of: Substring(path))
            } else {
                ext = pathExtension(of: uri.path)
            }
        } else {
            ext = pathExtension(of: key[...])
        }
        // NUL and `:` are single bytes in UTF-8, never part of another character's bytes.
        var cleaned =
            ext.utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: ":") })
            ? String(ext.unicodeScalars.filter { $0 != "\u{0}" && $0 != ":" }.map(Character.init))
            : String(ext)
        if cleaned.utf16.count > maxExtensionLength { cleaned = "" }
        return cleaned
    }

    /// The extension of the last component of `path` (one trailing `/` ignored), by the scan of
    /// docs/cache-contract.md §2, step 3.
    static func pathExtension(of path: Substring) -> Substring {
        var path = path
        if path.utf8.last == UInt8(ascii: "/") { path = path.dropLast() }
        if let ext = asciiPathExtension(of: path) { return ext }
        let scalars = path.unicodeScalars
        guard let last = scalars.indices.last else { return "" }
        if scalars[last] == "." { return "" }
        var index = last
        // Scan from the last character down to the second character of the component.
        while index > scalars.startIndex {
            let scalar = scalars[index]
            if scalar == "/" || scalar == " " || isBidiControl(scalar) { return "" }
            if scalar == "." {
                let before = scalars.index(before: index)
                // A dot that is the first character of its component is not an extension dot.
                if scalars[before] == "/" { return "" }
                return path[scalars.index(after: index)...]
            }
            index = scalars.index(before: index)
        }
        return ""
    }

    /// `pathExtension(of:)`'s scan over bytes, for a last component that is ASCII as far as the
    /// scan goes (the usual URL; a tenth of a hits-only pass went into scanning by Unicode
    /// scalars); nil when it meets a byte of another character, which the scalar scan judges.
    private static func asciiPathExtension(of path: Substring) -> Substring? {
        let bytes = path.utf8
        guard var index = bytes.indices.last else { return "" }
        if bytes[index] == UInt8(ascii: ".") { return "" }
        while index > bytes.startIndex {
            let byte = bytes[index]
            if byte >= 0x80 { return nil }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: " ") { return "" }
            if byte == UInt8(ascii: ".") {
                if bytes[bytes.index(before: index)] == UInt8(ascii: "/") { return "" }
                return path[bytes.index(after: index)...]
            }
            index = bytes.index(before: index)
        }
        return ""
    }

    private static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `%XX` escapes decoded; nil when the result is not valid UTF-8 (Foundation's `URL.path`
    /// has no string for such a path, so SDWebImage appends no extension).
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let h = URIReference.hexValue(high), let l = URIReference.hexValue(low)
            {
                bytes.append(h << 4 | l)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
