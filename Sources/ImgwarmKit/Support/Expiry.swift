/// How long something lasts before it expires: a cache file (`clean --max-age`) or a blacklist
/// entry (`--blacklist-ttl`). An explicit value rather than an optional, so "never" and "not
/// given" cannot be confused.
public enum Expiry: Sendable, Equatable {
    /// Never expires (`never`, or a negative age).
    case never
    /// Expires once it is this many seconds old (`0` expires everything at once).
    case after(seconds: Double)

    /// The age in seconds, nil for `.never`.
    public var seconds: Double? {
        if case .after(let seconds) = self { return seconds }
        return nil
    }

    /// True when something dated `date` has expired at `now`: its age is at least the limit.
    public func hasExpired(_ date: Double, now: Double) -> Bool {
        guard case .after(let seconds) = self else { return false }
        return date <= now - seconds
    }

    /// The value as a user writes it: `7d`, `12h`, `90s`, `never`.
    public var text: String {
        guard case .after(let seconds) = self else { return "never" }
        return Quantities.formatAge(seconds)
    }
}
