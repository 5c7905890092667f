import CCurl

/// Content codings decoded as libcurl decodes them (zlib, which libcurl links), for a body that
/// was received still encoded: a cache that keeps bodies as they came off the network (OkHttp's)
/// stores the encoded bytes, while what they decode to is the image to check.
public enum ContentDecoding {
    /// What a gzip (or zlib) body decodes to; nil when it is not a complete stream or decodes to
    /// more than `limit` bytes.
    public static func gunzip(_ bytes: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        let status = imgwarm_gunzip(
            bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, max(1, limit), &out, &count)
        guard status == 0, let out else { return nil }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: count))
    }
}
