import Magick
import Synchronization

/// Decides whether downloaded bytes are an image imgwarm may store (docs/usage.md, "imgwarm prefetch"): a format known
/// from its magic bytes, then ImageMagick restricted to that one coder, within the limits.
///
/// One validator per thread (it owns a MagickWand).
final class ImageValidator {
    let configuration: ValidationConfiguration
    private lazy var inspector = ImageInspector()
    /// How many images this validator handed to ImageMagick (header mode reads JPEG, PNG, GIF and
    /// WebP without it).
    private(set) var magickReads = 0

    init(configuration: ValidationConfiguration) {
        self.configuration = configuration
    }

    /// Starts ImageMagick with limits that match `configuration`, once per process, on the first
    /// image that needs it (a run of cache hits never loads it).
    private static let startLock = Mutex(false)

    static func startMagick(_ configuration: ValidationConfiguration) {
        startLock.withLock { started in
            guard !started else { return }
            var limits = Magick.ResourceLimits()
            limits.width = UInt64(configuration.maxDimension)
            limits.height = UInt64(configuration.maxDimension)
            limits.area = UInt64(configuration.maxPixels)
            limits.listLength = UInt64(max(1, configuration.maxFrames))
            Magick.start(limits: limits)
            started = true
        }
    }

    func validate(_ bytes: UnsafeRawBufferPointer) -> Result<ValidatedImage, Failure> {
        guard let format = ImageFormat.sniff(UnsafeRawBufferPointer(rebasing: bytes.prefix(ImageFormat.sniffLength)))
        else {
            return .failure(
                Failure(
                    .notAnImage,
                    "the body is not an image of a known format (it starts with \(ImageValidator.describe(bytes)))"))
        }
        if format == .svg { return validateSVG(bytes) }
        if let declared = DeclaredSize.read(format, bytes),
            let failure = checkLimits(declared.width, declared.height, declared: true)
        {
            return .failure(failure)
        }
        if let failure = StructureCheck.check(format, bytes, maxFrames: configuration.maxFrames) {
            return .failure(failure)
        }
        if format == .webp, case .success(let header) = WebPHeader.read(bytes), header.frames > configuration.maxFrames
        {
            // The chunk walk counts the frames of an animation, in both modes.
            return .failure(StructureCheck.tooManyFrames("WebP", configuration.maxFrames))
        }
        var size: (width: Int, height: Int)
        if let header = NativeHeader.read(format, bytes) {
            // JPEG, PNG, GIF and WebP headers are read here, not by ImageMagick (see NativeHeader;
            // ImageMagick 6 cannot even read only a WebP header, see WebPHeader), in both modes:
            // ImageMagick's ping of a WebP decodes every pixel, and its ping of a PNG inflates
            // every text chunk (609 MB for a 204 KB PNG whose zTXt inflates to 200 MB).
            switch header {
            case .success(let found):
                if let failure = checkLimits(found.width, found.height, declared: false)
                    ?? checkLimits(found.frameWidth, found.frameHeight, declared: false)
                {
                    return .failure(failure)
                }
                size = (found.width, found.height)
            case .failure(let failure):
                return .failure(failure)
            }
            if configuration.mode == .header {
                return .success(ValidatedImage(format: format, width: size.width, height: size.height))
            }
            if let failure = startMagick(for: format) { return .failure(failure) }
            magickReads += 1  // for the full decode below
        } else {
            if let failure = startMagick(for: format) { return .failure(failure) }
            magickReads += 1
            switch inspector.ping(bytes, coder: format.magickCoder, timeLimit: configuration.timeLimit) {
            case .success(let found): size = (found.width, found.height)
            case .failure(let error):
                return .failure(failure(error, format, "ImageMagick could not read the \(format.magickCoder) header"))
            }
            guard size.width > 0, size.height > 0 else {
                return .failure(Failure(.decodeFailed, "the \(format.magickCoder) header has no width or height"))
            }
            if let failure = checkLimits(size.width, size.height, declared: false) { return .failure(failure) }
        }
        if configuration.mode == .full {
            if let failure = checkDecodeCost(format, bytes, size) { return .failure(failure) }
            // PNG text and ICC chunks are left out of what ImageMagick decodes (DecodeCost).
            let decoded =
                format == .png
                ? DecodeCost.pngWithoutMetadata(bytes).map { stripped in
                    stripped.withUnsafeBytes {
                        inspector.decode($0, coder: format.magickCoder, timeLimit: configuration.timeLimit)
                    }
                }
                : nil
            let result =
                decoded ?? inspector.decode(bytes, coder: format.magickCoder, timeLimit: configuration.timeLimit)
            if case .failure(let error) = result {
                return .failure(failure(error, format, "ImageMagick could not decode the \(format.magickCoder) image"))
            }
        }
        return .success(ValidatedImage(format: format, width: size.width, height: size.height))
    }

    /// An SVG candidate: `not-an-image` (or `truncated`) unless it is a well-formed SVG document;
    /// then stored with `acceptSVG`, else `unsupported`.
    private func validateSVG(_ bytes: UnsafeRawBufferPointer) -> Result<ValidatedImage, Failure> {
        switch SVGCheck.check(bytes) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let size):
            guard configuration.acceptSVG else { return .failure(ImageValidator.svgUnsupported) }
            return .success(ValidatedImage(format: .svg, width: size.width, height: size.height))
        }
    }

    /// Why an SVG is not stored without `acceptSVG`.
    static var svgUnsupported: Failure {
        Failure(
            .unsupported,
            "an SVG image: image libraries decode SVG only with a plugin (SDWebImageSVGCoder, coil-svg); "
                + "\(Setting.acceptSVG) stores it for an app that has one")
    }

    /// Starts ImageMagick; `unsupported-format` when it has no coder for `format`.
    private func startMagick(for format: ImageFormat) -> Failure? {
        ImageValidator.startMagick(configuration)
        guard Magick.canRead(coder: format.magickCoder) else {
            return Failure(
                .unsupportedFormat, "\(format.rawValue.uppercased()) is recognised but this ImageMagick cannot read it")
        }
        return nil
    }

    /// A full decode's memory, from the header, against `maxDecodeMemory` and ImageMagick's
    /// pixel cache limit: over either is `validation-limit`, before any decoder runs.
    private func checkDecodeCost(
        _ format: ImageFormat, _ bytes: UnsafeRawBufferPointer, _ image: (width: Int, height: Int)
    ) -> Failure? {
        let cost = DecodeCost.estimate(format, bytes, width: image.width, height: image.height)
        let size = "\(image.width)×\(image.height)"
        if cost.working > configuration.maxDecodeMemory {
            return Failure(
                .validationLimit,
                "a full decode of this \(size) \(format.magickCoder) needs about \(mebibytes(cost.working)) MiB for "
                    + "\(cost.what), more than the \(mebibytes(configuration.maxDecodeMemory)) MiB one validation may "
                    + "use (\(Setting.maxDecodeMemory))")
        }
        let cacheLimit = Magick.memoryLimit
        if UInt64(cost.pixelCache) > cacheLimit {
            return Failure(
                .validationLimit,
                "a full decode of \(size) pixels reserves \(mebibytes(cost.pixelCache)) MiB of ImageMagick's pixel "
                    + "cache (8 bytes a pixel, never filled), more than its memory limit of "
                    + "\(mebibytes(Int(clamping: cacheLimit))) MiB (the memory resource of its policy.xml)")
        }
        return nil
    }

    /// What an ImageMagick failure means: its own limits (time, resources) are
    /// `validation-limit`, anything else a broken image.
    private func failure(_ error: MagickError, _ format: ImageFormat, _ fallback: String) -> Failure {
        if let seconds = error.timeLimit {
            return Failure(
                .validationLimit,
                "ImageMagick's \(format.magickCoder) coder took longer than \(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) s, the time one "
                    + "validation may take")
        }
        if error.isResourceLimit {
            return Failure(
                .validationLimit,
                "ImageMagick stopped at one of its resource limits (\(error.message.isEmpty ? "no detail" : error.message));"
                    + " the image may be fine")
        }
        return Failure(.decodeFailed, error.message.isEmpty ? fallback : error.message)
    }

    private func mebibytes(_ bytes: Int) -> Int { (bytes + (1 << 20) - 1) >> 20 }

    private func checkLimits(_ width: Int, _ height: Int, declared: Bool) -> Failure? {
        let area = width.multipliedReportingOverflow(by: height)
        let verb = declared ? "declares" : "is"
        if area.overflow || area.partialValue > configuration.maxPixels {
            return Failure(
                .imageTooLarge,
                "the image \(verb) \(width)×\(height) pixels, more than the limit of \(configuration.maxPixels) (\(Setting.maxPixels))"
            )
        }
        if width > configuration.maxDimension || height > configuration.maxDimension {
            return Failure(
                .imageTooLarge,
                "the image \(verb) \(width)×\(height) pixels; a side may be at most \(configuration.maxDimension)")
        }
        return nil
    }

    /// The first bytes as printable text (`'<!doctype html>…'`) or hexadecimal.
    static func describe(_ bytes: UnsafeRawBufferPointer) -> String {
        let head = bytes.prefix(16)
        if head.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            let text = String(decoding: head, as: UTF8.self).replacingControlCharacters()
            return "'\(text)\(bytes.count > 16 ? "…" : "")'"
        }
        let digits = Array("0123456789abcdef")
        return "0x" + String(head.prefix(8).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}

extension String {
    fileprivate func replacingControlCharacters() -> String {
        String(unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) })
    }
}
