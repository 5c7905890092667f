internal import CMagickWand

/// Reads images with one MagickWand, restricted to one named coder per call.
///
/// One inspector per thread: a wand is not thread-safe. `Magick.start(limits:)` must have run.
///
/// No read can end or hang the process: ImageMagick's own time limit, which is process-wide and
/// ends the process when it runs out, is off (`Magick.start`); each read has a deadline of its own.
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
    /// auto-detection): width and height; `frames` is 1. A read still running after `timeLimit`
    /// seconds stops at the coder's next progress report and fails with `.timeLimit`.
    ///
    /// Only the first frame, because a header read of every frame costs ImageMagick about 25 KB
    /// per frame whatever its size: 1.76 GB for a 1 MiB GIF of 70,000 1×1 frames. Reading scene
    /// 0 alone keeps one ping at a few MB, whatever the frame count.
    public func ping(_ bytes: UnsafeRawBufferPointer, coder: String, timeLimit: Double = 30) -> Result<
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
        MagickSetFilename(wand, coder + ":[0]")
        var state = imgwarm_read_state(
            deadline: imgwarm_monotonic_seconds() + timeLimit, timed_out: 0, rows: 0)
        let ok = Magick.oneReadAtATime {
            withUnsafeMutablePointer(to: &state) { pointer in
                _ = MagickSetProgressMonitor(wand, imgwarm_read_progress, pointer)
                defer { _ = MagickSetProgressMonitor(wand, nil, nil) }
                return MagickPingImageBlob(wand, base, bytes.count)
            }
        }
        var severity = UndefinedException
        let description = MagickGetException(wand, &severity)
        var message = description.map { String(cString: $0) } ?? ""
        if let description { MagickRelinquishMemory(description) }
        message = ImageInspector.clean(message)
        if state.timed_out != 0 { return .failure(.timeLimit(timeLimit)) }
        if ok == MagickFalse || severity.rawValue >= ErrorException.rawValue {
            return .failure(MagickError(severity: Int32(severity.rawValue), message: message))
        }
        MagickResetIterator(wand)
        _ = MagickNextImage(wand)
        let width = Int(clamping: MagickGetImageWidth(wand))
        let height = Int(clamping: MagickGetImageHeight(wand))
        return .success(ImageProperties(width: width, height: height, coder: coder, frames: 1))
    }

    /// Decodes all of `bytes` with the coder `coder`; corrupt pixel data is an error here. The
    /// number of frames read is bounded by `ResourceLimits.listLength`; a read still running
    /// after `timeLimit` seconds stops at its next row and fails with `.timeLimit`.
    ///
    /// The rows are streamed (MagickCore's `ReadStream`): each decoded row is handed to a
    /// callback that drops it, so ImageMagick's pixel cache (8 bytes a pixel at Q16) is reserved
    /// but never written. Measured with ImageMagick 6.9.11: a 12 MP JPEG decoded in a 104 MB
    /// process with `MagickReadImageBlob`, in 12 MB streamed. What the coder's library holds
    /// itself (libjpeg's coefficients of a progressive JPEG, libwebp's whole RGBA image) is not
    /// streamed: the caller bounds that before decoding (`DecodeCost` in ImgwarmKit).
    public func decode(_ bytes: UnsafeRawBufferPointer, coder: String, timeLimit: Double = 30) -> Result<
        ImageProperties, MagickError
    > {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            return .failure(MagickError(severity: 0, message: "no data"))
        }
        guard let exception = AcquireExceptionInfo() else {
            return .failure(MagickError(severity: 0, message: "out of memory"))
        }
        defer { _ = DestroyExceptionInfo(exception) }
        var state = imgwarm_read_state(
            deadline: imgwarm_monotonic_seconds() + timeLimit, timed_out: 0, rows: 0)
        return Magick.oneReadAtATime {
            let reserved = GetMagickResource(MemoryResource)
            let list = withUnsafeMutablePointer(to: &state) { pointer in
                imgwarm_read_stream(base, bytes.count, coder + ":", pointer, exception)
            }
            defer {
                if let list { _ = DestroyImageList(list) }
                // ImageMagick 6.9.11's stream cache frees the pixels its images reserved but not
                // their share of the memory resource (DestroyPixelStream never relinquishes what
                // OpenPixelCache acquired): uncorrected, every streamed read lowers what is left
                // for later ones by 8 bytes a pixel, and the 3rd 12 MP photo fails with "cache
                // resources exhausted". Reads are one at a time, so the difference is this read's.
                let leaked = GetMagickResource(MemoryResource)
                if leaked > reserved { RelinquishMagickResource(MemoryResource, leaked - reserved) }
            }
            return properties(of: list, exception: exception, state: state, coder: coder, timeLimit: timeLimit)
        }
    }

    private func properties(
        of list: UnsafeMutablePointer<Image>?, exception: UnsafeMutablePointer<ExceptionInfo>,
        state: imgwarm_read_state, coder: String, timeLimit: Double
    ) -> Result<ImageProperties, MagickError> {
        if state.timed_out != 0 { return .failure(.timeLimit(timeLimit)) }
        let severity = exception.pointee.severity
        if list == nil || severity.rawValue >= ErrorException.rawValue || severity == CorruptImageWarning {
            let reason = exception.pointee.reason.map { String(cString: $0) } ?? ""
            return .failure(MagickError(severity: Int32(severity.rawValue), message: ImageInspector.clean(reason)))
        }
        // Coders record damage found while decoding pixels (libjpeg's "Premature end of JPEG
        // file") on the image, not in the read's exception.
        var frames = 0
        var image = list
        while let current = image {
            frames += 1
            let imageException = current.pointee.exception
            if imageException.severity == CorruptImageWarning
                || imageException.severity.rawValue >= ErrorException.rawValue
            {
                let reason = imageException.reason.map { String(cString: $0) } ?? "corrupt image data"
                return .failure(
                    MagickError(
                        severity: Int32(imageException.severity.rawValue), message: ImageInspector.clean(reason)))
            }
            image = current.pointee.next
        }
        guard let first = list?.pointee else { return .failure(MagickError(severity: 0, message: "no image")) }
        return .success(
            ImageProperties(
                width: Int(clamping: first.columns), height: Int(clamping: first.rows), coder: coder, frames: frames))
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
