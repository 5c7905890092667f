/// How strictly downloaded bytes are checked before they are stored.
public struct ValidationConfiguration: Sendable {
    public enum Mode: String, CaseIterable, Sendable {
        /// ImageMagick reads the header (ping): format, width, height. The default.
        case header
        /// ImageMagick decodes every pixel: catches damaged image data too, at more CPU.
        case full
    }

    /// `.header` by default.
    public var mode: Mode = .header
    /// The largest pixel area accepted (width × height). `100_000_000` by default.
    public var maxPixels = 100_000_000
    /// The largest width or height accepted. `16384` by default (Debian's ImageMagick policy
    /// refuses larger sides without a reason).
    public var maxDimension = 16384

    public init() {}
}

/// An image that passed validation.
public struct ValidatedImage: Sendable, Equatable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
}
