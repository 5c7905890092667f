/// A key form SDWebImage or Kingfisher makes of a key when the app asks for a processed image
/// (docs/usage.md, "Processed images"):
/// - SDWebImage (`SDTransformedKeyForKey`, `SDThumbnailedKeyForKey`): `-<transformer key>` put
///   before the path's extension (the path then re-encoded as `NSURLComponents` does: `{` is
///   `%7B`), or after the whole key when the path has none; a thumbnail's transformer key is
///   `Thumbnail({w,h},preserveAspectRatio)` with `%f` numbers;
/// - Kingfisher (`String.computedKey(with:)`): `<key>@<processor identifier>`, the identifier a
///   processor builds from its parameters (`DownsamplingImageProcessor((200.0, 200.0))`).
///
/// The entry holds the processed image, which imgwarm does not make: `keys detect` names the
/// form; the library reads the unprocessed key's entry when the processed one misses
/// (SDWebImage 5.8 and later, Kingfisher's `retrieveImageFromCache`) and processes it.
public struct ProcessedKeyForm: Sendable, Equatable {
    /// The libraries that make processed keys, and what each does with them.
    public enum Library: String, Sendable, Equatable {
        case sdWebImage = "SDWebImage"
        case kingfisher = "Kingfisher"

        /// The library's name, as reports and messages print it.
        public var name: String { rawValue }

        /// How the library serves a processed key from the unprocessed one imgwarm writes.
        public var fallback: String {
            switch self {
            case .kingfisher:
                "Kingfisher reads the unprocessed key's entry when the processed one misses and processes it"
            case .sdWebImage:
                "SDWebImage reads the untransformed key's entry when the transformed one misses and transforms it"
            }
        }
    }

    public let library: Library
    /// The transformer key (SDWebImage) or the processor identifier (Kingfisher).
    public let identifier: String
    /// The identifier as it stands in a URL's path (SDWebImage re-encodes the path).
    let pathIdentifier: String

    public init(library: Library, identifier: String) {
        (self.library, self.identifier) = (library, identifier)
        pathIdentifier = ProcessedKeyForm.encodePath(ProcessedKeyForm.decodePercent(identifier))
    }

    /// The processed key of `key`.
    public func key(_ key: String) -> String {
        self.key(at: Insertion(key))
    }

    /// The processed key of the key `insertion` was cut from: a key is cut once for all the forms.
    func key(at insertion: Insertion) -> String {
        if library == .kingfisher { return insertion.key + "@" + identifier }
        guard insertion.inPath else { return insertion.key + "-" + identifier }
        return insertion.before + "-" + pathIdentifier + insertion.after
    }

    /// The form in words, with `<key>` for the key.
    public var words: String {
        library == .kingfisher
            ? "Kingfisher's processed key <key>@\(identifier)"
            : "SDWebImage's transformed key <key> with -\(identifier) before the extension"
    }

    // MARK: - SDWebImage

    /// A key cut where `SDTransformedKeyForKey(key, transformerKey)` puts `-<transformerKey>`:
    /// before the path's extension, the path then re-encoded as `NSURLComponents.path` does
    /// (escapes decoded, what `URLPathAllowedCharacterSet` lacks escaped: `-` and `.` separate
    /// the parts, so each part is re-encoded alone), or after the whole key when the path has
    /// no extension.
    struct Insertion {
        let key: String
        /// Whether the path has an extension: the transformer key goes into the path.
        var inPath = false
        /// `scheme://authority` and the re-encoded path without its extension.
        var before = ""
        /// `.`, the re-encoded extension, `?query` and `#fragment`.
        var after = ""

        init(_ key: String) {
            self.key = key
            let parts = KeyFilter.URLParts(key)
            let whole = parts.beforeQuery
            // The path starts after `scheme://authority`; a key that is no such URL is a file path.
            var pathStart = whole.startIndex
            if let colon = whole.utf8.firstIndex(of: UInt8(ascii: ":")), whole[colon...].hasPrefix("://") {
                let authority = whole.utf8.index(colon, offsetBy: 3)
                pathStart = whole[authority...].utf8.firstIndex(of: UInt8(ascii: "/")) ?? whole.endIndex
            }
            let path = whole[pathStart...]
            let ext = ProcessedKeyForm.pathExtension(path)
            guard !ext.isEmpty else { return }
            let stem = String(path.dropLast(ext.count + 1))
            inPath = true
            before = String(whole[..<pathStart]) + ProcessedKeyForm.encodePath(ProcessedKeyForm.decodePercent(stem))
            after =
                "." + ProcessedKeyForm.encodePath(ProcessedKeyForm.decodePercent(ext))
                + (parts.query.map { "?" + $0 } ?? "")
                + (parts.fragment.map { "#" + $0 } ?? "")
        }
    }

    /// The extension of a path's last segment as `NSString.pathExtension` gives it: the text
    /// after its last `.`, none when that is empty or the dot begins the segment.
    public static func pathExtension<S: StringProtocol>(_ path: S) -> String {
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last ?? path[...]
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex, last.index(after: dot) != last.endIndex
        else { return "" }
        return String(last[last.index(after: dot)...])
    }

    /// `%XX` escapes decoded to their bytes (what `NSURLComponents.path` returns).
    static func decodePercent(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = URIReference.hexValue(bytes[index + 1]),
                let low = URIReference.hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// Bytes outside `URLPathAllowedCharacterSet` escaped as `%XX` (what setting
    /// `NSURLComponents.path` does): letters, digits and `-._~!$&'()*+,;=:@/` stay.
    static func encodePath(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
                UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","),
                UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"):
                out.append(byte)
            default:
                out.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - The built-in list

    /// Sizes (pixels or points) tried in every form that takes one.
    static let commonSizes = [
        50, 64, 80, 100, 120, 128, 150, 160, 180, 200, 240, 256, 300, 320, 360, 375, 400, 480, 500, 512, 600, 640,
        720, 750, 768, 800, 1000, 1024, 1080, 1200, 1242, 1280, 1536, 2048,
    ]
    /// Corner and blur radii tried.
    static let radii = [2, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 25, 30, 40, 50]

    /// The libraries' own transformers and processors over the common parameter values, and over
    /// the sizes the URLs ask for (`sizes`, times 1, 2 and 3): a few thousand forms, so that
    /// trying each on a few sampled URLs stays fast (docs/usage.md, "Processed images").
    public static func builtIn(sizes seen: [Int] = []) -> [ProcessedKeyForm] {
        var pairs: [(Int, Int)] = []
        var pairSeen = Set<[Int]>()
        func add(_ w: Int, _ h: Int) { if pairSeen.insert([w, h]).inserted { pairs.append((w, h)) } }
        for size in commonSizes { add(size, size) }
        // The common aspect ratios among the common sizes (4:3, 16:9, 3:2, 2:1 either way).
        for w in commonSizes {
            for h in commonSizes where w != h {
                if w * 3 == h * 4 || w * 4 == h * 3 || w * 9 == h * 16 || w * 16 == h * 9 || w * 2 == h * 3
                    || w * 3 == h * 2 || w == h * 2 || h == w * 2
                {
                    add(w, h)
                }
            }
        }
        for scale in 1...3 {
            for w in seen { for h in seen { add(w * scale, h * scale) } }
        }
        var forms: [ProcessedKeyForm] = []
        func sd(_ identifier: String) { forms.append(ProcessedKeyForm(library: .sdWebImage, identifier: identifier)) }
        func kf(_ identifier: String) {
            forms.append(ProcessedKeyForm(library: .kingfisher, identifier: "com.onevcat.Kingfisher." + identifier))
        }
        for (w, h) in pairs {
            let (fw, fh) = ("\(w).000000", "\(h).000000")
            sd("Thumbnail({\(fw),\(fh)},1)")
            sd("Thumbnail({\(fw),\(fh)},0)")
            for mode in 0...2 { sd("SDImageResizingTransformer({\(fw),\(fh)},\(mode))") }
            let size = "(\(w).0, \(h).0)"
            kf("DownsamplingImageProcessor(\(size))")
            kf("ResizingImageProcessor(\(size))")
            kf("ResizingImageProcessor(\(size), aspectFit)")
            kf("ResizingImageProcessor(\(size), aspectFill)")
            kf("CroppingImageProcessor(\(size)_(0.5, 0.5))")
            // Kingfisher's README example: DownsamplingImageProcessor |> RoundCornerImageProcessor.
            for radius in [8, 10, 12, 16, 20] {
                kf("DownsamplingImageProcessor(\(size))|>com.onevcat.Kingfisher.RoundCornerImageProcessor(\(radius).0)")
            }
        }
        for radius in radii {
            sd("SDImageRoundCornerTransformer(\(radius).000000,18446744073709551615,0.000000,(null))")
            sd("SDImageBlurTransformer(\(radius).000000)")
            kf("RoundCornerImageProcessor(\(radius).0)")
            kf("BlurImageProcessor(\(radius).0)")
        }
        kf("RoundCornerImageProcessor(w_frac_0.5)")
        kf("RoundCornerImageProcessor(h_frac_0.5)")
        kf("BlackWhiteProcessor")
        for flip in ["1,0", "0,1", "1,1"] { sd("SDImageFlippingTransformer(\(flip))") }
        return forms
    }

    /// The sizes the URLs ask for: integer query values from 16 to 4096, the 8 most frequent.
    public static func sizesSeen(in urls: some Sequence<String>) -> [Int] {
        var counts: [Int: Int] = [:]
        for url in urls {
            guard let query = KeyFilter.URLParts(url).query else { continue }
            for parameter in query.split(separator: "&") {
                guard let equals = parameter.firstIndex(of: "="),
                    let value = Int(parameter[parameter.index(after: equals)...]), (16...4096).contains(value)
                else { continue }
                counts[value, default: 0] += 1
            }
        }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(8).map(\.key)
    }
}
