import Foundation
import ImgwarmKit
import LoopbackServer
import TestSupport
import Testing

/// `prefetch --shard auto` and `verify --shard auto` as a scheduler's tasks run them
/// (docs/usage.md, "Shards from the scheduler"): each scheduler's tasks warm the whole list between
/// them, each URL once, each report naming its scheduler and K/N; every refusal is a usage error
/// before any work.
@Suite struct ShardAutoTests {
    static let images = ["photo.jpg", "gradient.png", "anim.gif", "sticker.webp"]

    /// The environment of task `task` (0-based, in submission order) of `count` tasks under
    /// `scheduler`, as the scheduler sets it, and the `--shard` value the task is given.
    static func task(_ task: Int, of count: Int, under scheduler: ShardScheduler) -> (
        env: [String: String], shard: String
    ) {
        switch scheduler {
        case .kubernetes: return (["JOB_COMPLETION_INDEX": String(task)], "auto/\(count)")
        case .awsBatch: return (["AWS_BATCH_JOB_ARRAY_INDEX": String(task)], "auto/\(count)")
        case .slurm:
            // sbatch --array=10-(10 + 5 (count - 1)):5: IDs 10, 15, 20...
            return (
                [
                    "SLURM_ARRAY_TASK_ID": String(10 + 5 * task), "SLURM_ARRAY_TASK_MIN": "10",
                    "SLURM_ARRAY_TASK_MAX": String(10 + 5 * (count - 1)), "SLURM_ARRAY_TASK_STEP": "5",
                    "SLURM_ARRAY_TASK_COUNT": String(count), "SLURM_ARRAY_JOB_ID": "41", "SLURM_JOB_ID": "4\(task)",
                ], "auto"
            )
        case .gitlab: return (["CI_NODE_INDEX": String(task + 1), "CI_NODE_TOTAL": String(count)], "auto")
        case .circleci: return (["CIRCLE_NODE_INDEX": String(task), "CIRCLE_NODE_TOTAL": String(count)], "auto")
        case .buildkite:
            return (["BUILDKITE_PARALLEL_JOB": String(task), "BUILDKITE_PARALLEL_JOB_COUNT": String(count)], "auto")
        case .cloudRun:
            return (["CLOUD_RUN_TASK_INDEX": String(task), "CLOUD_RUN_TASK_COUNT": String(count)], "auto")
        }
    }

    /// Three tasks of each scheduler, one after another into one cache: every URL stored once,
    /// requested once, and task t is shard t+1 of 3 in its report and its summary.
    @Test(arguments: ShardScheduler.allCases)
    func eachSchedulersTasksWarmTheWholeListOnce(scheduler: ShardScheduler) throws {
        let h = try PrefetchHarness()
        let urls = (0..<12).map { h.url("/img/\(ShardAutoTests.images[$0 % 4])?n=\($0)") }
        let tasks = 3
        var stored = 0
        for t in 0..<tasks {
            let (env, shard) = ShardAutoTests.task(t, of: tasks, under: scheduler)
            let run = try h.prefetch(urls, options: ["--shard", shard], env: env)
            #expect(run.status == 0, "\(run.stderr)")
            let own = urls.filter { Shard.of(key: $0, count: tasks) == t + 1 }.count
            let totals = try #require(try run.report["totals"] as? [String: Any])
            #expect(totals["downloaded"] as? Int == own)
            #expect(totals["otherShard"] as? Int == urls.count - own)
            let reported = try #require(totals["shard"] as? [String: Any])
            #expect(reported["index"] as? Int == t + 1)
            #expect(reported["count"] as? Int == tasks)
            let origin = try #require(reported["scheduler"] as? [String: Any])
            #expect(origin["id"] as? String == scheduler.rawValue)
            #expect(origin["name"] as? String == scheduler.name)
            #expect(
                origin["variables"] as? [String: String] == env.filter { $0.key.hasPrefix(scheduler.variablePrefix) })
            #expect((try run.report["options"] as? [String: Any])?["shard"] as? String == "\(t + 1)/\(tasks)")
            #expect(
                run.stderr.contains(
                    "Ran as shard \(t + 1)/\(tasks) of the \(scheduler.name) (\(scheduler.indexVariable)=\(env[scheduler.indexVariable]!)"
                ), "\(run.stderr)")
            #expect(run.stderr.contains("\(plural(urls.count - own, "line")) left to other shards."), "\(run.stderr)")
            stored += own
        }
        #expect(stored == urls.count)
        #expect(h.cacheContents() == Set(urls.map(SDFileName.forKey)))
        #expect(h.server.requests.count == urls.count)
        #expect(
            Set(h.server.requests.map(\.target))
                == Set(
                    urls.map {
                        URLComponents(string: $0)!.percentEncodedPath + "?" + URLComponents(string: $0)!
                            .percentEncodedQuery!
                    }))

        // verify --shard auto checks the task's own keys: all hits.
        let list = h.temp.path("list.txt")
        for t in 0..<tasks {
            let (env, shard) = ShardAutoTests.task(t, of: tasks, under: scheduler)
            let run = try h.run(
                ["verify", "--disk-cache-path", h.folder, "--shard", shard, "--json", list], env: env)
            #expect(run.status == 0, "\(run.stderr)")
            let totals = try #require(try run.report["totals"] as? [String: Any])
            let own = urls.filter { Shard.of(key: $0, count: tasks) == t + 1 }.count
            #expect(totals["hits"] as? Int == own)
            #expect(totals["otherShard"] as? Int == urls.count - own)
            #expect((totals["shard"] as? [String: Any])?["index"] as? Int == t + 1)
        }
    }

    /// A refusal, as the command line meets it: environment, `--shard` value, words of the message.
    struct Refused: Sendable, CustomTestStringConvertible {
        let why: String
        let env: [String: String]
        let shard: String
        let words: [String]
        var testDescription: String { why }
    }

    static let refusals: [Refused] = [
        Refused(
            why: "no scheduler", env: [:], shard: "auto",
            words: ["--shard auto: no scheduler's variables", "JOB_COMPLETION_INDEX", "--shard 2/8"]),
        Refused(
            why: "an index without a count", env: ["JOB_COMPLETION_INDEX": "2"], shard: "auto",
            words: ["JOB_COMPLETION_INDEX=2", "--shard auto/N"]),
        Refused(
            why: "auto/N against the scheduler's count",
            env: ["CLOUD_RUN_TASK_INDEX": "1", "CLOUD_RUN_TASK_COUNT": "3"],
            shard: "auto/4", words: ["--shard auto/4", "runs 3 tasks", "not 4"]),
        Refused(
            why: "a Slurm array not evenly spaced",
            env: [
                "SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7",
                "SLURM_ARRAY_TASK_COUNT": "3",
            ], shard: "auto", words: ["not evenly spaced", "SLURM_ARRAY_TASK_ID=7", "sbatch -a 0-7"]),
        Refused(
            why: "K outside 1...N", env: ["CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "2"], shard: "auto",
            words: ["gives shard 0/2", "CI_NODE_INDEX=0"]),
        Refused(
            why: "two schedulers disagree",
            env: [
                "BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "2", "AWS_BATCH_JOB_ARRAY_INDEX": "1",
            ],
            shard: "auto/2", words: ["two schedulers disagree", "gives shard 1/2", "gives 2/2"]),
        Refused(
            why: "not a number", env: ["CIRCLE_NODE_INDEX": "1", "CIRCLE_NODE_TOTAL": "3 "], shard: "auto",
            words: ["CIRCLE_NODE_TOTAL=3 ", "not a whole number"]),
    ]

    /// Each refusal: exit 2, one line naming what was found, before any work (no request, no
    /// cache folder, no report), for prefetch and verify alike.
    @Test(arguments: refusals)
    func refusalsAreUsageErrorsBeforeAnyWork(refused: Refused) throws {
        let h = try PrefetchHarness()
        let report = h.temp.path("report.json")
        let run = try h.prefetch(
            [h.url("/img/photo.jpg")], options: ["--shard", refused.shard, "--report", report], env: refused.env)
        #expect(run.status == 2)
        for word in refused.words { #expect(run.stderr.contains(word), "\(refused.why): \(run.stderr)") }
        #expect(run.stderr.hasPrefix("imgwarm: --shard \(refused.shard): "), "\(run.stderr)")
        #expect(h.server.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: h.temp.path("caches")))
        #expect(!FileManager.default.fileExists(atPath: report))

        let verify = try h.run(
            ["verify", "--disk-cache-path", h.folder, "--shard", refused.shard, h.temp.path("list.txt")],
            env: refused.env)
        #expect(verify.status == 2)
        for word in refused.words { #expect(verify.stderr.contains(word), "\(refused.why): \(verify.stderr)") }
    }

    /// `--shard K/N` is the shard whatever the scheduler's variables say, and the report names no
    /// scheduler; the summary names the shard.
    @Test func aGivenShardNamesNoScheduler() throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch(
            [h.url("/img/photo.jpg"), h.url("/img/gradient.png")], options: ["--shard", "2/2"],
            env: ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"])
        #expect(run.status == 0, "\(run.stderr)")
        let shard = try #require((try run.report["totals"] as? [String: Any])?["shard"] as? [String: Any])
        #expect(shard["index"] as? Int == 2)
        #expect(shard["count"] as? Int == 2)
        #expect(shard["scheduler"] is NSNull)
        #expect(run.stderr.contains(" Ran as shard 2/2: "), "\(run.stderr)")
    }

    /// Without --shard the report's totals.shard is null, and the summary says nothing of shards.
    @Test func withoutShardTheReportSaysNull() throws {
        let h = try PrefetchHarness()
        let run = try h.prefetch([h.url("/img/photo.jpg")], env: ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"])
        #expect(run.status == 0, "\(run.stderr)")
        let totals = try #require(try run.report["totals"] as? [String: Any])
        #expect(totals["shard"] is NSNull)
        #expect(totals["otherShard"] as? Int == 0)
        #expect(!run.stderr.contains("shard"), "\(run.stderr)")
    }

    @Test func badAutoValuesAreUsageErrors() throws {
        let h = try PrefetchHarness()
        for value in ["auto/0", "auto/", "auto/x", "automatic"] {
            let run = try h.prefetch([h.url("/img/photo.jpg")], options: ["--shard", value])
            #expect(run.status == 2, "\(value)")
            #expect(run.stderr.contains("auto"), "\(value): \(run.stderr)")
            #expect(h.server.requests.isEmpty)
        }
    }
}

extension ShardScheduler {
    /// The prefix every variable of the scheduler's shares (for comparing what a report lists).
    var variablePrefix: String {
        switch self {
        case .kubernetes: return "JOB_COMPLETION_INDEX"
        case .slurm: return "SLURM_ARRAY_TASK_"
        case .gitlab: return "CI_NODE_"
        case .circleci: return "CIRCLE_NODE_"
        case .buildkite: return "BUILDKITE_PARALLEL_JOB"
        case .cloudRun: return "CLOUD_RUN_TASK_"
        case .awsBatch: return "AWS_BATCH_JOB_ARRAY_INDEX"
        }
    }
}
