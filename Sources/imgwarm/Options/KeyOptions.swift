import ArgumentParser
import ImgwarmKit

/// `--key-filter`: compute cache keys the way the app does (docs/cache-contract.md §6), for `prefetch` and `path`.
struct KeyFilterOptions: ParsableArguments {
    @Option(
        name: .customLong("key-filter"),
        help: ArgumentHelp(
            """
            Compute each cache key from its URL as the app's cacheKeyFilter does (repeatable, applied \
            left to right): url, strip-query, scheme-host-path, drop-params:NAME[,NAME...], \
            keep-params:NAME[,NAME...], regex:/PATTERN/TEMPLATE/. (prefetch keeps a JSON Lines "key" as it is.)
            """,
            valueName: "filter"),
        transform: KeyFilterOptions.parse)
    var keyFilters: [KeyFilter] = []

    /// The filters as the engine takes them.
    var chain: KeyFilterChain { KeyFilterChain(keyFilters) }

    static func parse(_ text: String) throws -> KeyFilter {
        do { return try KeyFilter.parse(text) } catch { throw ValidationError(error.message) }
    }
}

/// `--shard K/N`: one process of a fleet (docs/usage.md, "Running on many machines"), for `prefetch`.
struct ShardOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Handle only the lines whose key falls in shard K of N (1 <= K <= N <= 65536); the others are counted, not fetched.",
            valueName: "K/N"),
        transform: ShardOptions.parse)
    var shard: Shard?

    static func parse(_ text: String) throws -> Shard {
        do { return try Shard(parsing: text) } catch { throw ValidationError(error.message) }
    }
}
