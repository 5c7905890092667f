import ArgumentParser
import ImgwarmKit

/// `--expire-type`, for the commands that judge files by a date.
struct ExpireTypeOption: ParsableArguments {
    @Option(
        name: .customLong("expire-type"),
        help: ArgumentHelp(
            "The date files are judged by: access, modification, creation or change (default \(Defaults.clean.policy.expireType.rawValue)).",
            valueName: "type"),
        completion: .list(ExpireType.allCases.map(\.rawValue)),
        transform: Parse.expireType)
    var given: ExpireType?

    /// The type in force: the one given, else the engine's default.
    var expireType: ExpireType { given ?? Defaults.clean.policy.expireType }
}

/// Transforms for `@Option(transform:)` so a bad value's message shows a valid example.
enum Parse {
    /// The transform of an option whose values are an enum's raw values, in any case: a bad
    /// value's message names `what` and every valid value in the enum's order ("invalid
    /// priority 'x': use high, normal or low"). The one parser of the CLI's enum options.
    static func choice<Value: RawRepresentable & CaseIterable & Sendable>(_ what: String)
        -> @Sendable (String) throws -> Value
    where Value.RawValue == String, Value.AllCases: Sendable {
        { text in
            guard let value = Value(rawValue: text.lowercased()) else {
                let values = Value.allCases.map(\.rawValue)
                let listed =
                    values.dropLast().joined(separator: ", ") + (values.count > 1 ? " or " : "") + (values.last ?? "")
                throw ValidationError("invalid \(what) '\(text)': use \(listed)")
            }
            return value
        }
    }

    static func size(_ text: String) throws -> UInt64 {
        do { return try Quantities.parseSize(text) } catch { throw ValidationError(error.description) }
    }

    static func expiry(_ text: String) throws -> Expiry {
        do { return try Quantities.parseAge(text) } catch { throw ValidationError(error.description) }
    }

    /// `--freshness`: an age (`7d`), or `max-age=SECONDS` as a `Cache-Control` would say it.
    static func freshness(_ text: String) throws -> Expiry {
        let prefix = "max-age="
        guard text.lowercased().hasPrefix(prefix) else { return try expiry(text) }
        guard let seconds = Int64(text.dropFirst(prefix.count)), seconds > 0 else {
            throw ValidationError("invalid freshness '\(text)': max-age= takes a positive number of seconds")
        }
        return .after(seconds: Double(seconds))
    }

    static let progressMode: @Sendable (String) throws -> ProgressMode = choice("progress mode")

    static let expireType: @Sendable (String) throws -> ExpireType = choice("expire type")
}

extension Parse {
    static func seconds(_ option: String) -> @Sendable (String) throws -> Double {
        { text in
            do throws(Quantities.ParseError) { return try Quantities.parseSeconds(text, option: option) } catch {
                throw ValidationError(error.description)
            }
        }
    }

    /// `auto` or a count of 1 to 1024.
    static func concurrency(_ text: String) throws -> SlotPolicy.Configuration.Concurrency {
        if text.lowercased() == "auto" { return .auto }
        guard let count = Int(text), (1...1024).contains(count) else {
            throw ValidationError("--concurrency must be auto or a number between 1 and 1024, e.g. 16")
        }
        return .fixed(count)
    }

    /// `--max-rate-per-host`'s range, in words for the help and the message.
    static let requestRateRange = "0.01 (one request every 100 s) to 10000"

    /// Requests per second, 0.01 to 10,000 (`0.5` is one every 2 s). Below one request every
    /// 100 s a run would wait hours for a host's few URLs (1e-9 was once taken: one every 31 years).
    static func requestRate(_ text: String) throws -> Double {
        guard let rate = Double(text), rate.isFinite, rate >= 0.01, rate <= 10_000 else {
            throw ValidationError(
                "--max-rate-per-host must be a number of requests per second from \(requestRateRange), e.g. 10 or 0.5")
        }
        return rate
    }

    /// `--limit-rate`: a size per second; 0 is no limit, as for curl. A rate that rounds down to
    /// 0 bytes (`0.5`) is refused rather than taken for no limit.
    static func byteRate(_ text: String) throws -> UInt64 {
        let bytes = try size(text)
        if bytes == 0, let number = Double(text.filter { $0.isNumber || $0 == "." }), number > 0 {
            throw ValidationError("--limit-rate \(text) is less than 1 byte per second: use 0 for no limit, or e.g. 2M")
        }
        return bytes
    }

    static let priority: @Sendable (String) throws -> Priority = choice("priority")

    static let order: @Sendable (String) throws -> ExecutionOrder = choice("order")

    static let format: @Sendable (String) throws -> ListFormat = choice("list format")

    static let validationMode: @Sendable (String) throws -> ValidationConfiguration.Mode = choice("validation")

    /// A pixel count: a number with an optional K, M or G (powers of 1000), or WIDTHxHEIGHT.
    static func pixels(_ text: String) throws -> Int {
        let lower = text.lowercased()
        let parts = lower.split(separator: "x")
        if parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0,
            case (let area, let overflow) = width.multipliedReportingOverflow(by: height), !overflow
        {
            return area
        }
        let multipliers: [Character: Double] = ["k": 1e3, "m": 1e6, "g": 1e9]
        var number = Substring(lower)
        var multiplier = 1.0
        if let last = number.last, let found = multipliers[last] {
            multiplier = found
            number = number.dropLast()
        }
        guard let value = Double(number), value > 0, value * multiplier < 9e18 else {
            throw ValidationError(
                "invalid pixel limit '\(text)': use a count such as 100M or 40000000, or a size such as 8000x8000")
        }
        return Int(value * multiplier)
    }

    /// A proxy for `--proxy`: empty (no proxy), or one libcurl uses, as its own URL parser reads
    /// it (`FetchConfiguration.proxyProblem`): a scheme it speaks to proxies, a host, and no
    /// `%00` in the user name or password (libcurl would drop the proxy without a word and
    /// connect directly). The messages never repeat the value (it may hold a password).
    static func checkProxy(_ text: String) throws {
        if let problem = FetchConfiguration.proxyProblem(text) { throw ValidationError("invalid --proxy: \(problem)") }
    }

    /// A request header `Name: value` (curl's syntax; `Name:` removes a default header).
    static func header(_ text: String) throws -> String {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
            !text[..<colon].contains(where: { $0 == " " || $0 == "\t" }),
            !text.contains("\r"), !text.contains("\n")
        else {
            throw ValidationError(
                "invalid header '\(text)': use 'Name: value', e.g. --header 'Authorization: Bearer abc'")
        }
        return text
    }
}
