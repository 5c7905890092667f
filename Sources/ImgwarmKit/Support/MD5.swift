/// MD5 (RFC 1321), the digest SDWebImage 5.21 uses for disk cache file names.
///
/// A small, allocation-free implementation: the only use is hashing cache keys, so pulling in
/// swift-crypto (about a minute of extra clean build on two cores) buys nothing. It is checked
/// against the RFC 1321 test suite in `MD5Tests`.
public struct MD5: Sendable {
    private var a0: UInt32 = 0x6745_2301
    private var b0: UInt32 = 0xefcd_ab89
    private var c0: UInt32 = 0x98ba_dcfe
    private var d0: UInt32 = 0x1032_5476
    private var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var buffered = 0
    private var length: UInt64 = 0

    public init() {}

    /// The 16-byte digest of `bytes`.
    public static func digest<C: Collection>(_ bytes: C) -> Digest where C.Element == UInt8 {
        var md5 = MD5()
        md5.update(bytes)
        return md5.finalize()
    }

    /// The 16-byte digest of raw `bytes`.
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> Digest {
        var md5 = MD5()
        md5.update(bytes)
        return md5.finalize()
    }

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { update($0) }
        }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var index = 0
        if buffered > 0 {
            let take = min(64 - buffered, bytes.count)
            withUnsafeMutableBytes(of: &buffer) { block in
                for i in 0..<take { block[buffered + i] = bytes[i] }
            }
            buffered += take
            index = take
            if buffered == 64 {
                let block = buffer
                withUnsafeBytes(of: block) { compress($0) }
                buffered = 0
            }
        }
        while bytes.count - index >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + 64)]))
            index += 64
        }
        if index < bytes.count {
            let rest = bytes.count - index
            withUnsafeMutableBytes(of: &buffer) { block in
                for i in 0..<rest { block[i] = bytes[index + i] }
            }
            buffered = rest
        }
    }

    public mutating func finalize() -> Digest {
        let bitLength = length &* 8
        var padding = [UInt8](repeating: 0, count: buffered < 56 ? 56 - buffered : 120 - buffered)
        padding[0] = 0x80
        padding.withUnsafeBytes { update($0) }
        var tail = bitLength.littleEndian
        withUnsafeBytes(of: &tail) { update($0) }
        return Digest(a: a0, b: b0, c: c0, d: d0)
    }

    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// floor(abs(sin(i + 1)) * 2^32), as RFC 1321 tabulates them.
    private static let constants: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var words = (
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
            UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0)
        )
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: block) }
        withUnsafeBytes(of: words) { raw in
            let m = raw.bindMemory(to: UInt32.self)
            var a = a0
            var b = b0
            var c = c0
            var d = d0
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i >> 4 {
                case 0:
                    f = (b & c) | (~b & d)
                    g = i
                case 1:
                    f = (d & b) | (~d & c)
                    g = (5 &* i &+ 1) & 15
                case 2:
                    f = b ^ c ^ d
                    g = (3 &* i &+ 5) & 15
                default:
                    f = c ^ (b | ~d)
                    g = (7 &* i) & 15
                }
                f = f &+ a &+ MD5.constants[i] &+ UInt32(littleEndian: m[g])
                a = d
                d = c
                c = b
                let s = MD5.shifts[i]
                b = b &+ ((f << s) | (f >> (32 - s)))
            }
            a0 = a0 &+ a
            b0 = b0 &+ b
            c0 = c0 &+ c
            d0 = d0 &+ d
        }
    }

    /// A 128-bit MD5 digest; hashable so it can stand for a key in sets.
    public struct Digest: Hashable, Sendable {
        public let a: UInt32, b: UInt32, c: UInt32, d: UInt32

        public init(a: UInt32, b: UInt32, c: UInt32, d: UInt32) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// 32 lower-case hexadecimal digits, as SDWebImage formats it (`%02x` per byte).
        public var hex: String {
            String(unsafeUninitializedCapacity: 32) { out in
                writeHex(into: out.baseAddress!)
                return 32
            }
        }

        /// Writes the 32 hexadecimal digits at `out`.
        public func writeHex(into out: UnsafeMutablePointer<UInt8>) {
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { hexDigits in
                func put(_ word: UInt32, at offset: Int) {
                    for index in 0..<4 {
                        let byte = Int((word >> UInt32(index * 8)) & 0xff)
                        out[offset + index * 2] = hexDigits[byte >> 4]
                        out[offset + index * 2 + 1] = hexDigits[byte & 0xf]
                    }
                }
                put(a, at: 0)
                put(b, at: 8)
                put(c, at: 16)
                put(d, at: 24)
            }
        }
    }
}
