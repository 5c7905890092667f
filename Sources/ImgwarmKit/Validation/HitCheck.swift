/// The cheap test a prefetch gives a cache hit's bytes before it counts it as a hit (issue 31):
/// the app treats bytes it cannot decode as a miss and downloads again (SDWebImage's disk read
/// returns no image), so a file cut short or replaced by something else must not be reported
/// "in the cache".
///
/// It reads the first `headLength` and last `tailLength` bytes, never the whole file when they
/// settle it: the format from the magic bytes (nothing known: damaged), the declared size of a
/// WebP or BMP against the file's, and the end marker of a JPEG (FF D9), a PNG (its IEND chunk)
/// or a GIF (0x3B) among the last bytes. A file whose end marker is not there may still be
/// whole (a JPEG with data after its end-of-image marker passes validation): only then is the
/// whole file read and walked by `StructureCheck`, the check it passed when it was stored, so a
/// file imgwarm stored is never judged damaged and downloaded again on every run.
public enum HitCheck {
    public static let headLength = ImageFormat.sniffLength
    public static let tailLength = 32

    /// What the head and tail say.
    public enum Verdict: Equatable, Sendable {
        /// An image of this format whose ends are those of a whole file (or a format whose
        /// completeness the head cannot tell: TIFF, HEIC, HEIF, AVIF, as `StructureCheck`).
        case intact(ImageFormat)
        /// Damaged: why, in words.
        case damaged(String)
        /// Only the whole file can tell (`whole`).
        case needsWholeFile(ImageFormat)
    }

    /// Judges a file of `size` bytes from its `head` (its first `headLength` bytes, or all of a
    /// smaller file) and its `tail` (its last `tailLength` bytes, or all of it).
    public static func judge(head: UnsafeRawBufferPointer, tail: UnsafeRawBufferPointer, size: Int) -> Verdict {
        guard let format = ImageFormat.sniff(head) else {
            return .damaged("it is not an image of a known format (it starts with \(ImageValidator.describe(head)))")
        }
        switch format {
        case .webp, .bmp:
            // Their declared size is in the head: StructureCheck's own test, on the head alone.
            let failure = format == .webp ? StructureCheck.riff(head, size: size) : StructureCheck.bmp(head, size: size)
            return failure.map { .damaged($0.message) } ?? .intact(format)
        case .jpeg:
            return ends(tail, with: [0xFF, 0xD9]) ? .intact(format) : .needsWholeFile(format)
        case .png:
            // The IEND chunk: its type and CRC, which never change.
            return ends(tail, with: [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
                ? .intact(format) : .needsWholeFile(format)
        case .gif:
            return ends(tail, with: [0x3B]) ? .intact(format) : .needsWholeFile(format)
        case .tiff, .heic, .heif, .avif:
            return .intact(format)
        case .ico, .svg:
            // An icon's directory and an SVG's closing tags are not all in the head or the tail:
            // both are small files, read whole.
            return .needsWholeFile(format)
        }
    }

    /// The verdict on the whole file, for `needsWholeFile`: nil when it is whole.
    public static func whole(_ bytes: UnsafeRawBufferPointer, format: ImageFormat) -> String? {
        guard let failure = StructureCheck.check(format, bytes, maxFrames: .max) else { return nil }
        // Too many frames says nothing of the file's completeness: it was stored like that.
        return failure.reason == .imageTooLarge ? nil : failure.message
    }

    private static func ends(_ tail: UnsafeRawBufferPointer, with marker: [UInt8]) -> Bool {
        guard tail.count >= marker.count else { return false }
        return zip(tail.suffix(marker.count), marker).allSatisfy { $0 == $1 }
    }
}
