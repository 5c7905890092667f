/// How strictly downloaded bytes are checked before they are stored.
public struct ValidationConfiguration: Sendable {
    public enum Mode: String, CaseIterable, Sendable {
        /// The header is read and checked (format, width, height): by NativeHeader for JPEG, PNG,
        /// GIF and WebP, by ImageMagick's coder (ping) for the others. The default.
        case header
        /// ImageMagick decodes every pixel: catches damaged image data too, at more CPU.
        case full
    }

    /// `.header` by default.
    public var mode: Mode = .header
    /// The largest pixel area accepted (width × height). `100_000_000` by default.
    public var maxPixels = 100_000_000
    /// The largest width or height accepted, in pixels. `16000` by default: Debian's ImageMagick
    /// policy (`/etc/ImageMagick-6/policy.xml`, width and height `16KP`) refuses larger sides
    /// without saying why, so imgwarm refuses them first, with the reason.
    public var maxDimension = 16000
    /// The most frames (GIF images, TIFF directories; with `.full`, images of any format) an image
    /// may hold. `2000` by default: ImageMagick keeps about 25 KB per frame it reads, so 2000
    /// frames cost at most about 50 MB, and a file of 70,000 tiny frames is refused instead of
    /// taking 1.7 GB. In `.header` mode only the first frame is read.
    public var maxFrames = 2000
    /// With `.full`, the most memory one decode may need beyond ImageMagick's pixel cache (which
    /// a decode streams row by row and never fills): libjpeg's coefficients of a progressive
    /// JPEG, libwebp's whole RGBA image, an interlaced PNG's rows, a TIFF strip, a HEIC image
    /// (`DecodeCost`). An image that needs more fails with `validation-limit`, before any decoder
    /// sees it. `100 MiB` by default.
    public var maxDecodeMemory = 100 << 20
    /// Seconds ImageMagick may spend reading one image; then that read stops and the image fails
    /// with `validation-limit`. `30` by default.
    public var timeLimit: Double = 30
    /// Store SVG documents (checked as well-formed SVG by `SVGCheck`, never by ImageMagick), for
    /// apps whose image library has an SVG plugin (SDWebImageSVGCoder, coil-svg). Without it an
    /// SVG is `unsupported`: no library decodes one by default. `false` by default.
    public var acceptSVG = false

    public init() {}
}

/// An image that passed validation.
public struct ValidatedImage: Sendable, Equatable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
}
