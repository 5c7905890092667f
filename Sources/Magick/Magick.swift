import CMagickWand

#if canImport(Glibc)
    import Glibc
#endif

/// Process-wide set-up of ImageMagick (MagickWand 6): started once, limits set explicitly.
public enum Magick {
    /// The resource limits ImageMagick enforces while reading. They can only lower what the
    /// system policy (`/etc/ImageMagick-6/policy.xml`) allows, never raise it.
    public struct ResourceLimits: Sendable, Equatable {
        /// Largest width and height in pixels. `16000` by default: Debian's policy value (`16KP`
        /// in `/etc/ImageMagick-6/policy.xml` is 16,000, not 16,384).
        public var width: UInt64 = 16000
        public var height: UInt64 = 16000
        /// Largest pixel area. `100_000_000` by default.
        public var area: UInt64 = 100_000_000
        /// Pixel cache memory and memory map, in bytes. `256 MiB` by default.
        public var memory: UInt64 = 256 << 20
        public var map: UInt64 = 512 << 20
        /// Pixel cache on disk: none, so a hostile file cannot fill the disk. `0` by default.
        public var disk: UInt64 = 0
        /// Threads one decode may use: one, so validation does not fight the downloader. `1` by default.
        public var threads: UInt64 = 1
        /// Seconds one read may run. `30` by default. (ImageMagick counts them from its first
        /// use of a pixel cache in the process and then exits the process: every read restarts
        /// the count, see `restartTimeLimit`.)
        public var time: UInt64 = 30
        /// The most images one read may hold (frames of a GIF, directories of a TIFF…); a longer
        /// list fails the read. `2000` by default: each costs about 25 KB even when it is 1×1
        /// (measured: 2000 1×1 GIF frames decode in 50 MB).
        public var listLength: UInt64 = 2000

        public init() {}
    }

    private static let genesis: Void = {
        MagickWandGenesis()
        // ImageMagick loads its locale messages on the first exception, under a lock that is not
        // recursive. When that first exception is an allocation failure, loading them fails too,
        // throws again and waits on the lock it holds: the thread hangs for ever (seen under
        // `ulimit -v` with ImageMagick 6.9.11). Loading them now, while memory is plentiful,
        // leaves the error path nothing to load.
        if let message = GetLocaleMessage("imgwarm") { _ = message }
    }()

    /// Starts ImageMagick (once per process) and applies `limits`.
    public static func start(limits: ResourceLimits) {
        _ = genesis
        MagickSetResourceLimit(WidthResource, MagickSizeType(limits.width))
        MagickSetResourceLimit(HeightResource, MagickSizeType(limits.height))
        MagickSetResourceLimit(AreaResource, MagickSizeType(limits.area))
        MagickSetResourceLimit(MemoryResource, MagickSizeType(limits.memory))
        MagickSetResourceLimit(MapResource, MagickSizeType(limits.map))
        MagickSetResourceLimit(DiskResource, MagickSizeType(limits.disk))
        MagickSetResourceLimit(ThreadResource, MagickSizeType(limits.threads))
        MagickSetResourceLimit(TimeResource, MagickSizeType(limits.time))
        // ImageMagick fails a read when its list reaches the limit: one more allows `listLength`.
        MagickSetResourceLimit(ListLengthResource, MagickSizeType(limits.listLength + 1))
    }

    /// Starts ImageMagick's time limit over. ImageMagick 6.9 counts it from the first pixel cache
    /// of the process, not per read, and ends the whole process with a fatal error once it is
    /// past ("time limit exceeded"): a prefetch that decodes an image more than 30 s after its
    /// first would die. Setting the limit again (to itself) restarts the count, so it bounds
    /// each read; with reads on several threads, a read may run longer while others start.
    public static func restartTimeLimit() {
        MagickSetResourceLimit(TimeResource, MagickGetResourceLimit(TimeResource))
    }

    /// ImageMagick's version string, e.g. `ImageMagick 6.9.11-60 Q16 x86_64 …`.
    public static var version: String {
        _ = genesis
        var number = 0
        guard let text = MagickGetVersion(&number) else { return "unknown" }
        return String(cString: text)
    }

    private static let readable = ReadableCoders()

    /// True when this ImageMagick build has a coder that can read `coder` (e.g. `HEIC`). Asked
    /// once per coder and remembered; only that coder's module is loaded.
    public static func canRead(coder: String) -> Bool {
        readable.canRead(coder.uppercased())
    }
}

/// Coder availability, looked up one coder at a time (`MagickQueryFormats` would load every
/// coder module ImageMagick has: 15 MB and 50 ms).
private final class ReadableCoders: @unchecked Sendable {
    private var known: [String: Bool] = [:]
    private var lock = pthread_mutex_t()

    init() { pthread_mutex_init(&lock, nil) }

    func canRead(_ coder: String) -> Bool {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        if let answer = known[coder] { return answer }
        _ = Magick.version
        let exception = AcquireExceptionInfo()
        defer { _ = DestroyExceptionInfo(exception) }
        let info = GetMagickInfo(coder, exception)
        let answer = info != nil && info?.pointee.decoder != nil
        known[coder] = answer
        return answer
    }
}

/// Why ImageMagick could not read an image.
public struct MagickError: Error, Sendable, CustomStringConvertible {
    /// ImageMagick's `ExceptionType` (warnings 300–399, errors 400–499, fatal 700+); 0 when it
    /// failed without saying why (as it does when a policy limit refuses an image).
    public var severity: Int32
    public var message: String

    public var description: String { message }
}

/// What reading an image's header (or whole image) found.
public struct ImageProperties: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The coder ImageMagick read it with, e.g. `JPEG`.
    public var coder: String
    public var frames: Int
}
