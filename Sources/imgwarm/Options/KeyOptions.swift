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

/// `--shard K/N` and `--shard auto[/N]`: one process of a fleet (docs/usage.md, "Running on many
/// machines"), for `prefetch` and `verify`.
struct ShardOptions: ParsableArguments {
    @Option(
        name: .customLong("shard"),
        help: ArgumentHelp(
            """
            Handle only the lines whose key falls in shard K of N (1 <= K <= N <= 65536); the others \
            are counted, not fetched. auto reads K and N from the scheduler that started the process \
            (Kubernetes Indexed Job, Slurm array, GitLab, CircleCI, Buildkite, Cloud Run, AWS Batch); \
            auto/N gives N where the scheduler does not (Kubernetes, AWS Batch).
            """,
            valueName: "K/N|auto[/N]"),
        transform: ShardOptions.parse)
    var request: ShardRequest?

    static func parse(_ text: String) throws -> ShardRequest {
        do { return try ShardRequest(parsing: text) } catch { throw ValidationError(error.message) }
    }

    /// The shard this process handles: nil without `--shard`; `auto` read from `environment` (the
    /// command's), refused with exit 2 when the scheduler's variables give no single shard.
    func shard(environment: [String: String]) throws(CommandFailure) -> Shard? {
        do {
            return try request?.shard(environment: environment)
        } catch {
            throw CommandFailure.usage(error.message)
        }
    }
}
