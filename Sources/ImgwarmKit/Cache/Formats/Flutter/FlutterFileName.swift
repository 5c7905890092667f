import Synchronization

/// The file names flutter_cache_manager 3.4.1 gives downloads: a version 1 UUID (package `uuid`,
/// `Uuid().v1()`: lower-case, hyphenated, a random node with its multicast bit set and a random
/// clock sequence) and the extension of the response's `Content-Type` (`FlutterResponse`), e.g.
/// `6c84fb90-12c4-11e1-840d-7b25c5ee775a.png` (`WebHelper._setDataFromHeaders`, docs/cache-formats-android.md).
public final class FlutterFileName: Sendable {
    /// Milliseconds between the UUID epoch (1582-10-15) and the Unix epoch.
    static let gregorianOffset: Int64 = 12_219_292_800_000

    private struct State {
        var lastMilliseconds: Int64 = 0
        var ticks: Int64 = 0
    }

    private let node: [UInt8]
    private let clockSequence: UInt16
    private let state = Mutex(State())

    /// A generator with a random node and clock sequence, as the library's is per app run.
    public convenience init() {
        var generator = SystemRandomNumberGenerator()
        var node = (0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) }
        node[0] |= 0x01
        self.init(node: node, clockSequence: UInt16.random(in: 0...0x3fff, using: &generator))
    }

    /// A generator with this node (6 bytes) and clock sequence (14 bits), for tests.
    public init(node: [UInt8], clockSequence: UInt16) {
        precondition(node.count == 6)
        self.node = node
        self.clockSequence = clockSequence & 0x3fff
    }

    /// A new name for a download at `milliseconds` since the Unix epoch, with `fileExtension`
    /// (its dot included, or empty). Names made by one generator never repeat.
    public func next(milliseconds: Int64, fileExtension: String) -> String {
        let (time, tick) = state.withLock { state -> (Int64, Int64) in
            if milliseconds > state.lastMilliseconds {
                state.lastMilliseconds = milliseconds
                state.ticks = 0
            } else {
                state.ticks += 1
                if state.ticks == 10_000 {
                    state.lastMilliseconds += 1
                    state.ticks = 0
                }
            }
            return (state.lastMilliseconds, state.ticks)
        }
        return FlutterFileName.uuid(milliseconds: time, ticks: tick, clockSequence: clockSequence, node: node)
            + fileExtension
    }

    /// The version 1 UUID (RFC 4122) of `milliseconds` since the Unix epoch plus `ticks` × 100 ns.
    static func uuid(milliseconds: Int64, ticks: Int64, clockSequence: UInt16, node: [UInt8]) -> String {
        let time = UInt64(milliseconds + gregorianOffset) &* 10_000 &+ UInt64(ticks)
        let low = UInt32(truncatingIfNeeded: time)
        let mid = UInt16(truncatingIfNeeded: time >> 32)
        let high = UInt16(truncatingIfNeeded: time >> 48) & 0x0fff | 0x1000
        let sequence = clockSequence & 0x3fff | 0x8000
        return hex(UInt64(low), digits: 8) + "-" + hex(UInt64(mid), digits: 4) + "-" + hex(UInt64(high), digits: 4)
            + "-" + hex(UInt64(sequence), digits: 4) + "-" + node.map { hex(UInt64($0), digits: 2) }.joined()
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// True when `name` has the shape of these names: a lower-case version 1 UUID, then nothing
    /// or an extension (a dot and no slash).
    public static func isName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 36 else { return false }
        for (offset, byte) in bytes[..<36].enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if offset == 14 {
                guard byte == UInt8(ascii: "1") else { return false }
            } else {
                let digit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                guard digit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) else { return false }
            }
        }
        let rest = bytes[36...]
        return rest.isEmpty || (rest.first == UInt8(ascii: ".") && !rest.contains(UInt8(ascii: "/")))
    }
}
