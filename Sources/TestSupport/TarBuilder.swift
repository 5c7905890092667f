/// Hand-made tar streams for the tests of `pull` (DeviceBoundaryTests, PullStagingTests): ustar
/// headers of any type, mode and name, so that a test can play a hostile device (device nodes,
/// links, setuid files, names climbing out) or a broken one (a stream cut between two members or
/// inside one, without its end-of-archive blocks).
public struct TarBuilder {
    /// The bytes so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// The type flags of a ustar header.
    public enum Kind: UInt8 {
        case file = 48  // '0'
        case hardLink = 49  // '1'
        case symbolicLink = 50  // '2'
        case characterDevice = 51  // '3'
        case blockDevice = 52  // '4'
        case directory = 53  // '5'
        case fifo = 54  // '6'
    }

    /// Adds a member: its header, then `data` padded to 512 bytes.
    public mutating func add(
        _ name: String, kind: Kind = .file, data: [UInt8] = [], mode: UInt32 = 0o644, modified: Int64 = 1_700_000_000,
        link: String = "", device: (major: UInt32, minor: UInt32) = (0, 0)
    ) {
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int, width: Int) {
            for (index, byte) in text.utf8.prefix(width).enumerated() { header[offset + index] = byte }
        }
        func octal(_ value: UInt64, at offset: Int, width: Int) {
            put(String(String(value, radix: 8).suffix(width - 1)).leftPadded(to: width - 1), at: offset, width: width)
        }
        put(name, at: 0, width: 100)
        octal(UInt64(mode), at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        octal(UInt64(data.count), at: 124, width: 12)
        octal(UInt64(modified), at: 136, width: 12)
        header[156] = kind.rawValue
        put(link, at: 157, width: 100)
        put("ustar", at: 257, width: 6)
        put("00", at: 263, width: 2)
        octal(UInt64(device.major), at: 329, width: 8)
        octal(UInt64(device.minor), at: 337, width: 8)
        for index in 148..<156 { header[index] = 32 }
        let sum = header.reduce(0) { $0 + UInt64($1) }
        put(String(String(sum, radix: 8)).leftPadded(to: 6), at: 148, width: 6)
        header[154] = 0
        header[155] = 32
        bytes += header + data + [UInt8](repeating: 0, count: (512 - data.count % 512) % 512)
    }

    /// Adds the end-of-archive blocks (two of 512 zeros) and a tar's padding to a 10 KiB record.
    public mutating func finish() {
        bytes += [UInt8](repeating: 0, count: 1024)
        bytes += [UInt8](repeating: 0, count: (10240 - bytes.count % 10240) % 10240)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
