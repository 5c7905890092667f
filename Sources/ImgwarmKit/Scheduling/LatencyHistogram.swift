/// Latencies of one host in bounded memory, for the report's median: each octave from 2⁻¹⁰ s
/// (about 1 ms) to 64 s in 8 equal steps (none wider than 12.5 %), so the median is known to
/// within about 6 % whatever the number of requests. Built on `Double.exponent` and
/// `significand`: the engine has no `log`.
struct LatencyHistogram: Sendable {
    private static let lowestExponent = -10
    private static let octaves = 16
    private static let steps = 8
    private var counts = [UInt32](repeating: 0, count: octaves * steps + 1)
    private(set) var count = 0

    mutating func add(_ seconds: Double) {
        counts[LatencyHistogram.bucket(seconds)] &+= 1
        count += 1
    }

    /// Bucket 0 holds everything below 2⁻¹⁰ s; the last one everything from 64 s.
    static func bucket(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds >= 0x1p-10 else { return 0 }
        let octave = Int(seconds.exponent) - lowestExponent
        guard octave < octaves else { return octaves * steps }
        let step = min(steps - 1, Int((seconds.significand - 1) * Double(steps)))
        return 1 + octave * steps + step
    }

    /// The middle of bucket `index`, in seconds.
    static func value(_ index: Int) -> Double {
        guard index > 0 else { return 0x1p-11 }
        let octave = (index - 1) / steps
        let step = (index - 1) % steps
        let scale = Double(sign: .plus, exponent: octave + lowestExponent, significand: 1)
        return scale * (1 + (Double(step) + 0.5) / Double(steps))
    }

    /// The median latency, nil before any.
    var median: Double? {
        guard count > 0 else { return nil }
        let half = (count + 1) / 2
        var seen = 0
        for (index, n) in counts.enumerated() {
            seen += Int(n)
            if seen >= half { return LatencyHistogram.value(index) }
        }
        return nil
    }
}
