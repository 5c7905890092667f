import CCurl

/// Content codings decoded as libcurl decodes them (zlib, which libcurl links), for a body that
/// was received still encoded: a cache that keeps bodies as they came off the network (OkHttp's)
/// stores the encoded bytes, while what they decode to is the image to check.
public enum ContentDecoding {
    /// Why a body does not decode.
    public enum Failure: Error, Sendable, Equatable {
        /// It decodes to more than the limit: decoding stopped there.
        case tooLarge
        /// It is not one complete gzip (or zlib) stream.
        case invalid
    }

    /// Calls `body` with what a gzip (or zlib) body decodes to, decoded as a stream into one
    /// buffer that grows up to `limit` bytes and no further (a body that would decode to more
    /// stops there: `tooLarge`), and frees it after: at most `limit` decoded bytes are ever held.
    public static func withGunzipped<R>(
        _ bytes: UnsafeRawBufferPointer, limit: Int, _ body: (UnsafeRawBufferPointer) -> R
    ) -> Result<R, Failure> {
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        // One byte past the limit tells a body of exactly `limit` bytes from a larger one.
        let status = imgwarm_gunzip(
            bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, max(1, limit) + 1, &out, &count)
        if status == -2 { return .failure(.tooLarge) }
        guard status == 0, let out else { return .failure(.invalid) }
        defer { free(out) }
        if count > limit { return .failure(.tooLarge) }
        return .success(body(UnsafeRawBufferPointer(start: out, count: count)))
    }

    /// What a gzip (or zlib) body decodes to; nil when it is not a complete stream or decodes to
    /// more than `limit` bytes.
    public static func gunzip(_ bytes: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
        try? withGunzipped(bytes, limit: limit) { Array($0) }.get()
    }
}
