import ImgwarmSystem

/// A HAR capture read as a list (`--format har`, or a `.har` file under `auto`): every entry
/// whose response is an image becomes a line numbered by its entry (docs/usage.md, "HAR
/// captures as lists").
///
/// A redirect chain recorded as several entries (a 3xx whose `redirectURL`, else `Location`,
/// is the URL of a later entry) is one line: the first request's URL and entry number (what the
/// app asked for, and so its cache key) with the final response's data. Entries of other methods
/// than GET, of other schemes than http(s), and those not images are counted, not reported.
struct HARList {
    /// Why the capture could not be read further.
    enum ReadError: Error, Equatable {
        /// The JSON is broken (or cut short) at a byte offset.
        case syntax(JSONStream.SyntaxError)
        /// The JSON is whole but not a HAR: no `log.entries` array.
        case structure(String)
        /// The scratch file of the bodies failed.
        case scratch(HARBodies.ScratchError)

        var message: String {
            switch self {
            case .syntax(let error): return "the HAR's JSON is broken at byte \(error.offset): \(error.message)"
            case .structure(let message): return message
            case .scratch(let error):
                return "the scratch file of the HAR's bodies failed: \(SystemError.message(error.code))"
            }
        }
    }

    /// What one line of the capture is.
    enum Line: Equatable {
        /// An image: `number` and `url` are those of the chain's first entry, `entry` is the last.
        case image(number: Int, url: String, entry: HAREntry)
        /// An entry that is not usable, or the capture's own problem (then `number` is the entry
        /// being read when it struck, 1 before any).
        case invalid(number: Int, reason: String)
    }

    /// What the capture held.
    struct Counts: Equatable {
        /// Entries of `log.entries`.
        var entries = 0
        /// Lines handed over as images (a redirect chain is one).
        var images = 0
        /// Entries that are not images, or not GET, or not http(s): counted only.
        var skipped = 0
        var invalid = 0
    }

    /// A chain's first entry, while its redirect is waiting for the entry it leads to.
    private struct Chain {
        var number: Int
        var url: String
        /// The chain's last entry so far (a 3xx).
        var last: HAREntry
    }

    /// Chains waiting at most: past this, the oldest are judged as they are.
    static let maxWaitingChains = 4096

    private var reader: HARReader
    private let bodies: HARBodies
    private var waiting: [String: Chain] = [:]
    private(set) var counts = Counts()

    init(bodies: HARBodies) {
        reader = HARReader(bodies: bodies)
        self.bodies = bodies
    }

    /// Reads `chunk`, handing over every line it completes.
    mutating func feed(_ chunk: ArraySlice<UInt8>, _ line: (Line) -> Void) throws(ReadError) {
        // The reader is taken out while it calls back into `self`: each entry is judged (its
        // body kept) before the next body is written.
        var tokenizer = reader
        defer { reader = tokenizer }
        var failure: ReadError?
        do {
            try tokenizer.feed(chunk) { take($0, line) }
        } catch {
            failure = error
        }
        counts.entries = tokenizer.entriesSeen
        if let failure {
            judgeWaiting(line)  // the chains read before the break, as at the end
            counts.invalid += 1
            line(.invalid(number: max(1, tokenizer.entriesSeen), reason: failure.message))
            throw failure
        }
    }

    /// Ends the capture: the chains still waiting are judged, and its own problem, if any, is a
    /// line.
    mutating func finish(_ line: (Line) -> Void) {
        var failure: ReadError?
        do throws(ReadError) { try reader.finish() } catch { failure = error }
        judgeWaiting(line)
        counts.entries = reader.entriesSeen
        if let failure {
            counts.invalid += 1
            line(.invalid(number: max(1, reader.entriesSeen), reason: failure.message))
        }
    }

    /// Judges the chains still waiting for their next entry, by their first entry's number.
    private mutating func judgeWaiting(_ line: (Line) -> Void) {
        for chain in waiting.values.sorted(by: { $0.number < $1.number }) { judge(chain, head: [], line) }
        waiting = [:]
    }

    private mutating func take(_ item: HARReader.Item, _ line: (Line) -> Void) {
        switch item {
        case .invalid(let number, let reason):
            counts.invalid += 1
            line(.invalid(number: number, reason: reason))
        case .entry(let entry, let head):
            var chain =
                waiting.removeValue(forKey: entry.url) ?? Chain(number: entry.number, url: entry.url, last: entry)
            chain.last = entry
            if let target = entry.redirectTarget, target != entry.url {
                if waiting.count >= HARList.maxWaitingChains,
                    let oldest = waiting.min(by: { $0.value.number < $1.value.number })
                {
                    waiting[oldest.key] = nil
                    judge(oldest.value, head: [], line)
                }
                waiting[target] = chain
                return
            }
            judge(chain, head: head, line)
        }
    }

    private mutating func judge(_ chain: Chain, head: [UInt8], _ line: (Line) -> Void) {
        var judged = chain.last
        var last = chain.last
        // A chain that never reached its end is judged by the URL the app asked for; its 3xx's
        // body was not kept (the next body was written over it).
        if judged.redirectTarget != nil {
            judged.url = chain.url
            last.body = nil
        }
        let scheme = chain.url.prefix(8).lowercased()
        guard judged.method.uppercased() == "GET", scheme.hasPrefix("http://") || scheme.hasPrefix("https://"),
            judged.isImage(head: head)
        else {
            counts.skipped += 1
            return
        }
        counts.images += 1
        last.svg = judged.isSVG(head: head)
        if let body = last.body { bodies.keep(body) }
        line(.image(number: chain.number, url: chain.url, entry: last))
    }

    /// Reads the capture on `descriptor` to its end (or until `stop` is readable), handing over
    /// each line; returns the counts, whether `stop` ended it, and the `errno` of a failed read.
    /// `head`: bytes already read from it (`OpenedList`), read first.
    static func read(
        _ descriptor: FileDescriptor, head: [UInt8] = [], bodies: HARBodies, stop: FileDescriptor?,
        _ line: (Line) -> Bool
    ) -> (counts: Counts, stopped: Bool, readError: SystemError?) {
        var list = HARList(bodies: bodies)
        var chunk = [UInt8](repeating: 0, count: max(1 << 16, head.count))
        var head = head
        var first = true
        var halted = false
        let hand = { (next: Line) in if !halted && !line(next) { halted = true } }
        while !halted {
            let count: Int
            if !head.isEmpty {
                chunk.replaceSubrange(0..<head.count, with: head)
                count = head.count
                head = []
            } else {
                if let stop, !descriptor.waitReadable(unlessReadable: stop) { return (list.counts, true, nil) }
                do throws(SystemError) {
                    count = try descriptor.read(into: &chunk)
                } catch {
                    return (list.counts, false, error)
                }
            }
            if count == 0 { break }
            var bytes = chunk[0..<count]
            // A UTF-8 byte order mark at the start is not part of the JSON.
            if first && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            first = false
            do throws(ReadError) { try list.feed(bytes, hand) } catch { return (list.counts, false, nil) }
        }
        if halted { return (list.counts, true, nil) }
        list.finish(hand)
        return (list.counts, false, nil)
    }
}
