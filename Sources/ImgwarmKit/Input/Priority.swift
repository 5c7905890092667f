/// A download priority (SDWebImage's `SDWebImageHighPriority` / `LowPriority`): higher starts first.
public enum Priority: String, CaseIterable, Codable, Sendable, Comparable {
    case high, normal, low

    /// 0 for high, 1 for normal, 2 for low: the order transfers start in.
    public var rank: Int {
        switch self {
        case .high: return 0
        case .normal: return 1
        case .low: return 2
        }
    }

    public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rank < rhs.rank }
}

/// The order within one priority (SDWebImage's `executionOrder`). `.fifo` by default.
public enum ExecutionOrder: String, CaseIterable, Sendable {
    case fifo, lifo
}

/// How a list file is read.
public enum ListFormat: String, CaseIterable, Sendable {
    /// `.jsonl` / `.ndjson` files are JSON Lines, `.har` files HAR captures, everything else
    /// plain text.
    case auto
    /// One URL per line; blank lines and `#` lines are ignored.
    case plain
    /// One JSON object per line with `url` and an optional `priority`.
    case jsonl
    /// A HAR capture (HAR 1.2): each entry whose response is an image is a line, numbered by
    /// its entry (`HARList`).
    case har
}

/// One list to read: a path or `-` for standard input.
public struct ListSource: Sendable, Equatable {
    public var path: String
    public var format: ListFormat
    /// The priority of lines that do not name one.
    public var priority: Priority

    public init(path: String, format: ListFormat = .auto, priority: Priority = .normal) {
        self.path = path
        self.format = format
        self.priority = priority
    }

    /// The format after `auto` is resolved from the file name.
    public var effectiveFormat: ListFormat {
        guard format == .auto else { return format }
        let lower = path.lowercased()
        if lower.hasSuffix(".har") { return .har }
        return lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") ? .jsonl : .plain
    }

    /// Where line `line` of this list is, as messages name it: `list.txt:3`, or `capture.har
    /// entry 3` for a HAR capture, whose lines are its entries.
    public func place(_ line: Int) -> String {
        effectiveFormat == .har ? "\(displayName) entry \(line)" : "\(displayName):\(line)"
    }

    /// How reports and messages name this list.
    public var displayName: String { path == "-" ? "standard input" : path }
}
