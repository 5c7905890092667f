import Magick
import Synchronization

/// Decides whether downloaded bytes are an image imgwarm may store (README, "imgwarm prefetch"): a format known
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
        if configuration.mode == .header, let header = NativeHeader.read(format, bytes) {
            // JPEG, PNG, GIF and WebP headers are read here, not by ImageMagick (see NativeHeader;
            // ImageMagick 6 cannot even read only a WebP header, see WebPHeader).
            switch header {
            case .success(let size):
                if let failure = checkLimits(size.width, size.height, declared: false)
                    ?? checkLimits(size.frameWidth, size.frameHeight, declared: false)
                {
                    return .failure(failure)
                }
                return .success(ValidatedImage(format: format, width: size.width, height: size.height))
            case .failure(let failure):
                return .failure(failure)
            }
        }
        ImageValidator.startMagick(configuration)
        guard Magick.canRead(coder: format.magickCoder) else {
            return .failure(
                Failure(
                    .unsupportedFormat,
                    "\(format.rawValue.uppercased()) is recognised but this ImageMagick cannot read it"))
        }
        let properties: ImageProperties
        magickReads += 1
        switch inspector.ping(bytes, coder: format.magickCoder) {
        case .success(let found): properties = found
        case .failure(let error):
            let detail =
                error.message.isEmpty ? "ImageMagick could not read the \(format.magickCoder) header" : error.message
            return .failure(Failure(.decodeFailed, detail))
        }
        guard properties.width > 0, properties.height > 0 else {
            return .failure(Failure(.decodeFailed, "the \(format.magickCoder) header has no width or height"))
        }
        if let failure = checkLimits(properties.width, properties.height, declared: false) { return .failure(failure) }
        if configuration.mode == .full, case .failure(let error) = inspector.decode(bytes, coder: format.magickCoder) {
            let detail =
                error.message.isEmpty ? "ImageMagick could not decode the \(format.magickCoder) image" : error.message
            return .failure(Failure(.decodeFailed, detail))
        }
        return .success(ValidatedImage(format: format, width: properties.width, height: properties.height))
    }

    private func checkLimits(_ width: Int, _ height: Int, declared: Bool) -> Failure? {
        let area = width.multipliedReportingOverflow(by: height)
        let verb = declared ? "declares" : "is"
        if area.overflow || area.partialValue > configuration.maxPixels {
            return Failure(
                .imageTooLarge,
                "the image \(verb) \(width)×\(height) pixels, more than the limit of \(configuration.maxPixels) (--max-pixels)"
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
