internal import CMagickWand

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
        /// Pixel cache memory, in bytes. `2 GiB` by default, so the system policy decides (Debian's
        /// `/etc/ImageMagick-6/policy.xml` says 256 MiB): decodes stream their rows and never fill
        /// the cache they reserve (`ImageInspector.decode`), and pings reserve none.
        public var memory: UInt64 = 2 << 30
        /// Memory-mapped pixel cache, in bytes (it needs disk, which is 0). `512 MiB` by default.
        public var map: UInt64 = 512 << 20
        /// Pixel cache on disk: none, so a hostile file cannot fill the disk. `0` by default.
        public var disk: UInt64 = 0
        /// Threads one decode may use: one, so validation does not fight the downloader. `1` by default.
        public var threads: UInt64 = 1
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
        // ImageMagick's time limit is process-wide: it is counted from the first pixel cache of
        // the process and, once past, ImageMagick ends the whole process (`ThrowFatalException`:
        // MagickCoreTerminus, then _exit, whatever the fatal error handler). Restarting it before
        // each read raced with reads on other threads: GetImagePixelCache (cache.c) checks that the
        // start time is set, then subtracts it from now; a reset in between made that thread
        // count from 1970, and the fatal path (exit, or a deadlock in MagickCoreTerminus against
        // another thread's module lock) ended validating runs (issue 21).
        // It is off; every read has a deadline of its own instead (ImageInspector's `timeLimit`).
        MagickSetResourceLimit(TimeResource, imgwarm_resource_infinity)
        // ImageMagick fails a read when its list reaches the limit: one more allows `listLength`.
        MagickSetResourceLimit(ListLengthResource, MagickSizeType(limits.listLength + 1))
    }

    /// The pixel cache memory ImageMagick allows in all, in bytes: `ResourceLimits.memory` or the
    /// system policy's lower value. Every image being read reserves its share of it.
    public static var memoryLimit: UInt64 {
        _ = genesis
        return UInt64(MagickGetResourceLimit(MemoryResource))
    }

    /// ImageMagick's version string, e.g. `ImageMagick 6.9.11-60 Q16 x86_64 …`.
    public static var version: String {
        _ = genesis
        var number = 0
        guard let text = MagickGetVersion(&number) else { return "unknown" }
        return String(cString: text)
    }

    private static let readable = ReadableCoders()
    private static let readLock = ReadLock()

    /// Runs one ImageMagick read (`body`) while no other runs. ImageMagick's resource accounting
    /// is process-wide: one lock makes its limits those of a single image, and lets a streamed
    /// decode see exactly what it reserved (see `ImageInspector.decode`).
    static func oneReadAtATime<T>(_ body: () -> T) -> T {
        readLock.lock()
        defer { readLock.unlock() }
        return body()
    }

    /// True when this ImageMagick build has a coder that can read `coder` (e.g. `HEIC`). Asked
    /// once per coder and remembered; only that coder's module is loaded.
    public static func canRead(coder: String) -> Bool {
        readable.canRead(coder.uppercased())
    }
}

/// A mutex for `Magick.oneReadAtATime`.
private final class ReadLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    func lock() { pthread_mutex_lock(&mutex) }
    func unlock() { pthread_mutex_unlock(&mutex) }
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
    /// Set when the read ran out of its time (`timeLimit` seconds), not out of image data.
    public var timeLimit: Double?

    public init(severity: Int32, message: String, timeLimit: Double? = nil) {
        self.severity = severity
        self.message = message
        self.timeLimit = timeLimit
    }

    /// The read was stopped at its deadline.
    static func timeLimit(_ seconds: Double) -> MagickError {
        MagickError(severity: 0, message: "the read took longer than \(seconds) s", timeLimit: seconds)
    }

    /// True when a resource limit of ImageMagick's (pixel cache memory, map, disk, width, height,
    /// area, list length) or a memory allocation stopped the read: the image may be fine.
    public var isResourceLimit: Bool {
        severity == Int32(ResourceLimitError.rawValue) || severity == Int32(ResourceLimitFatalError.rawValue)
    }

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
