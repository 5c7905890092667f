internal import CMagickWand

/// One ImageMagick coder as this build has it.
public struct MagickCoderInfo: Sendable, Equatable {
    /// The coder's name, e.g. `JPEG`.
    public var name: String
    /// True when this build can read it.
    public var canRead: Bool
    /// The library behind it, as ImageMagick reports it (e.g. `libpng 1.6.39`); nil when it
    /// says none.
    public var library: String?
}

extension Magick {
    /// ImageMagick's release date, e.g. `2021-01-25`.
    public static var releaseDate: String {
        _ = version
        guard let text = MagickGetReleaseDate() else { return "unknown" }
        return String(cString: text)
    }

    /// The features it was built with, e.g. `Cipher DPC Modules OpenMP(4.5)`.
    public static var features: String {
        _ = version
        guard let text = GetMagickFeatures() else { return "" }
        return String(cString: text)
    }

    /// The delegate libraries it was built with, e.g. `bzlib ... heic jpeg png tiff webp ...`.
    public static var delegates: String {
        _ = version
        guard let text = GetMagickDelegates() else { return "" }
        return String(cString: text)
    }

    /// What this build has of `coder` (e.g. `HEIC`). Loads that coder's module only.
    public static func coderInfo(_ coder: String) -> MagickCoderInfo {
        let name = coder.uppercased()
        let readable = canRead(coder: name)
        let exception = AcquireExceptionInfo()
        defer { _ = DestroyExceptionInfo(exception) }
        var library: String?
        if readable, let info = GetMagickInfo(name, exception), let text = info.pointee.version {
            let value = String(cString: text)
            library = value.isEmpty ? nil : value
        }
        return MagickCoderInfo(name: name, canRead: readable, library: library)
    }
}
