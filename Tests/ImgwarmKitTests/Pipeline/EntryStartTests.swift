import Testing

@testable import ImgwarmKit

/// `EntryStart`, the one start rule of the run and the dry run, over every combination of its
/// inputs, without a cache, a database or a server: what it decides, and which of the reads it
/// is given it makes (a read it does not need costs a query in the real run).
@Suite struct EntryStartTests {
    static let name = "a1b2c3.png"
    static let size = 1234
    static let listed = StateStore.BlacklistEntry(
        url: "https://example.com/a.png", failedAt: 1_700_000_000, errorClass: FailureReason.httpStatus.rawValue,
        message: "the server answered 404", httpStatus: 404, attempts: 1)
    static let unavailable = Failure(.hostUnavailable, "example.com is unavailable")

    /// The state records a hit may meet: none, one describing the file there now (with and
    /// without validators), and ones describing another file.
    static func records() -> [(String, StateStore.Record?)] {
        func record(_ fileName: String, _ size: Int, etag: String?, lastModified: String?) -> StateStore.Record {
            StateStore.Record(
                key: "k", fileName: fileName, size: size, format: "png", width: 1, height: 1, etag: etag,
                lastModified: lastModified, fetchedAt: 0, validatedAt: 0)
        }
        return [
            ("none", nil),
            ("etag", record(name, size, etag: "\"v1\"", lastModified: nil)),
            ("last-modified", record(name, size, etag: nil, lastModified: "Mon, 01 Jan 2024 00:00:00 GMT")),
            ("both", record(name, size, etag: "\"v1\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT")),
            ("no validators", record(name, size, etag: nil, lastModified: nil)),
            ("another name", record("other.png", size, etag: "\"v1\"", lastModified: nil)),
            ("another size", record(name, size + 1, etag: "\"v1\"", lastModified: nil)),
        ]
    }

    /// The rule in words, one line per case, for the table to check the decision against.
    static func expected(
        _ lookup: CacheStore.Lookup, firstAttempt: Bool, rules: EntryStart.Rules, record: StateStore.Record?,
        listed: StateStore.BlacklistEntry?, unavailable: Failure?
    ) -> EntryStart {
        // A folder where the file goes: nothing else matters.
        if lookup == .blocked { return .blocked(name: name) }
        // A hit without --refresh is cached, whatever its host.
        if case .hit(let size) = lookup, !rules.refresh { return .cached(size: size) }
        // The blacklist holds back a first attempt at a miss, unless --retry-failed.
        if lookup == .miss, firstAttempt, !rules.retryFailed, let listed { return .blacklisted(listed) }
        // Anything that would make a request does not when its host is unavailable.
        if let unavailable { return .hostUnavailable(unavailable) }
        guard lookup != .miss else { return .fetch }
        // Validators only of a record of this very file.
        guard let record, record.fileName == name, record.size == size,
            record.etag != nil || record.lastModified != nil
        else { return .revalidate(nil) }
        return .revalidate(Downloader.Validators(etag: record.etag, lastModified: record.lastModified))
    }

    @Test func everyCombination() {
        var count = 0
        for lookup in [CacheStore.Lookup.hit(size: Self.size), .miss, .blocked] {
            for firstAttempt in [true, false] {
                for refresh in [false, true] {
                    for retryFailed in [false, true] {
                        for (recordName, record) in Self.records() {
                            for listed in [nil, Self.listed] {
                                for unavailable in [nil, Self.unavailable] {
                                    var reads = (record: 0, blacklist: 0, host: 0)
                                    let rules = EntryStart.Rules(refresh: refresh, retryFailed: retryFailed)
                                    let decision = EntryStart.decide(
                                        lookup, name: Self.name, firstAttempt: firstAttempt, rules: rules,
                                        record: {
                                            reads.record += 1
                                            return record
                                        },
                                        blacklisted: {
                                            reads.blacklist += 1
                                            return listed
                                        },
                                        hostUnavailable: {
                                            reads.host += 1
                                            return unavailable
                                        })
                                    let want = Self.expected(
                                        lookup, firstAttempt: firstAttempt, rules: rules, record: record,
                                        listed: listed, unavailable: unavailable)
                                    let inputs =
                                        "\(lookup) first=\(firstAttempt) refresh=\(refresh) retryFailed=\(retryFailed) record=\(recordName) listed=\(listed != nil) unavailable=\(unavailable != nil)"
                                    #expect(decision == want, "\(inputs)")
                                    // Each read at most once, and only where the rule needs it.
                                    let isHit = lookup != .miss && lookup != .blocked
                                    #expect(reads.record == (isHit && refresh ? 1 : 0), "record read: \(inputs)")
                                    #expect(
                                        reads.blacklist == (lookup == .miss && firstAttempt && !retryFailed ? 1 : 0),
                                        "blacklist read: \(inputs)")
                                    let asksHost: Bool
                                    switch decision {
                                    case .fetch, .revalidate, .hostUnavailable: asksHost = true
                                    case .cached, .blocked, .blacklisted: asksHost = false
                                    }
                                    #expect(reads.host == (asksHost ? 1 : 0), "host read: \(inputs)")
                                    count += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        #expect(count == 3 * 2 * 2 * 2 * 7 * 2 * 2)
    }

    /// The cases the dry run got wrong before, and the ones the table's words might blur.
    @Test func namedCases() {
        func decide(
            _ lookup: CacheStore.Lookup, firstAttempt: Bool = true, refresh: Bool = false, retryFailed: Bool = false,
            listed: StateStore.BlacklistEntry? = Self.listed, unavailable: Failure? = nil
        ) -> EntryStart {
            EntryStart.decide(
                lookup, name: Self.name, firstAttempt: firstAttempt,
                rules: EntryStart.Rules(refresh: refresh, retryFailed: retryFailed), record: { nil },
                blacklisted: { listed }, hostUnavailable: { unavailable })
        }
        #expect(decide(.miss) == .blacklisted(Self.listed))
        #expect(decide(.miss, retryFailed: true) == .fetch, "--retry-failed requests a blacklisted URL")
        #expect(decide(.miss, firstAttempt: false) == .fetch, "a retry is not held back by the blacklist")
        #expect(decide(.miss, unavailable: Self.unavailable) == .blacklisted(Self.listed))
        #expect(decide(.miss, retryFailed: true, unavailable: Self.unavailable) == .hostUnavailable(Self.unavailable))
        #expect(decide(.hit(size: 7), unavailable: Self.unavailable) == .cached(size: 7), "a hit needs no host")
        #expect(decide(.hit(size: 7), refresh: true) == .revalidate(nil))
        #expect(decide(.blocked, refresh: true, retryFailed: true) == .blocked(name: Self.name))
    }

    /// Blocked and blacklisted starts end the entry alike in the run and the dry run.
    @Test func resultsOfStartsThatEndTheEntry() throws {
        let entry = PendingEntry(
            line: 3, input: 0, url: Self.listed.url, priority: .normal)
        let blacklisted = try #require(EntryStart.blacklisted(Self.listed).result(of: entry, fileName: Self.name))
        #expect(blacklisted.outcome == .blacklisted)
        #expect(blacklisted.httpStatus == 404)
        #expect(blacklisted.fileName == Self.name)
        #expect(blacklisted.failure?.reason == .httpStatus)
        #expect(blacklisted.failure?.message.hasPrefix("blacklisted since 2023-11-14") == true)
        let blocked = try #require(EntryStart.blocked(name: Self.name).result(of: entry, fileName: Self.name))
        #expect(blocked.outcome == .failed)
        #expect(blocked.failure?.reason == .writeFailed)
        #expect(EntryStart.fetch.result(of: entry, fileName: Self.name) == nil)
        #expect(EntryStart.cached(size: 1).result(of: entry, fileName: Self.name) == nil)
    }
}
