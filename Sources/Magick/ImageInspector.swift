import CMagickWand

/// Reads images with one MagickWand, restricted to one named coder per call.
///
/// One inspector per thread: a wand is not thread-safe. `Magick.start(limits:)` must have run.
public final class ImageInspector {
    private let wand: OpaquePointer

    public init() {
        _ = Magick.version  // makes sure ImageMagick is started
        wand = NewMagickWand()
    }

    deinit {
        DestroyMagickWand(wand)
    }

    /// Reads only the header of the first frame of `bytes` with the coder `coder` (never
    /// auto-detection): width and height; `frames` is 1.
    ///
    /// Only the first frame, because a header read of every frame costs ImageMagick about 25 KB
    /// per frame whatever its size: 1.76 GB for a 1 MiB GIF of 70,000 1×1 frames. Reading scene
    /// 0 alone keeps one ping at a few MB, whatever the frame count.
    public func ping(_ bytes: UnsafeRawBufferPointer, coder: String) -> Result<ImageProperties, MagickError> {
        read(bytes, coder: coder, decode: false)
    }

    /// Decodes all of `bytes` with the coder `coder`; corrupt pixel data is an error here. The
    /// number of frames read is bounded by `ResourceLimits.listLength`.
    public func decode(_ bytes: UnsafeRawBufferPointer, coder: String) -> Result<ImageProperties, MagickError> {
        read(bytes, coder: coder, decode: true)
    }

    private func read(_ bytes: UnsafeRawBufferPointer, coder: String, decode: Bool) -> Result<
        ImageProperties, MagickError
    > {
        ClearMagickWand(wand)
        defer { ClearMagickWand(wand) }
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            return .failure(MagickError(severity: 0, message: "no data"))
        }
        // "CODER:" as the file name makes ImageMagick use that coder and skip format detection
        // (MagickSetFormat alone does not); a "[0]" scene suffix makes it stop after the first
        // frame (coders honour the scene range of a ping).
        MagickSetFilename(wand, coder + (decode ? ":" : ":[0]"))
        Magick.restartTimeLimit()
        let ok =
            decode
            ? MagickReadImageBlob(wand, base, bytes.count)
            : MagickPingImageBlob(wand, base, bytes.count)
        var severity = UndefinedException
        let description = MagickGetException(wand, &severity)
        var message = description.map { String(cString: $0) } ?? ""
        if let description { MagickRelinquishMemory(description) }
        message = ImageInspector.clean(message)
        let failed =
            ok == MagickFalse || severity.rawValue >= ErrorException.rawValue
            || (decode && severity == CorruptImageWarning)
        if failed {
            return .failure(MagickError(severity: Int32(severity.rawValue), message: message))
        }
        if decode {
            // Coders record damage found while decoding pixels (libjpeg's "Premature end of JPEG
            // file") on the image, not on the wand.
            MagickResetIterator(wand)
            while MagickNextImage(wand) != MagickFalse {
                guard let image = GetImageFromMagickWand(wand) else { continue }
                let imageException = image.pointee.exception
                let severity = imageException.severity
                if severity == CorruptImageWarning || severity.rawValue >= ErrorException.rawValue {
                    let reason = imageException.reason.map { String(cString: $0) } ?? "corrupt image data"
                    return .failure(
                        MagickError(severity: Int32(severity.rawValue), message: ImageInspector.clean(reason)))
                }
            }
        }
        MagickResetIterator(wand)
        _ = MagickNextImage(wand)
        let width = Int(clamping: MagickGetImageWidth(wand))
        let height = Int(clamping: MagickGetImageHeight(wand))
        let frames = Int(clamping: MagickGetNumberImages(wand))
        return .success(ImageProperties(width: width, height: height, coder: coder, frames: frames))
    }

    /// ImageMagick messages end with an empty file name and a source location
    /// (`improper image header `' @ error/png.c/ReadPNGImage/4110`): keep what a user can read.
    static func clean(_ message: String) -> String {
        var text = message
        if let at = text.firstRange(of: " @ ") { text = String(text[..<at.lowerBound]) }
        if let quote = text.firstRange(of: " `'") { text.removeSubrange(quote) }
        return text
    }
}
