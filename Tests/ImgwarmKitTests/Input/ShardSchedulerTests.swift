import Testing

@testable import ImgwarmKit

/// `--shard auto` and `auto/N` (docs/usage.md, "Shards from the scheduler"): every row of the
/// table read to imgwarm's 1-based K, and every refusal.
@Suite struct ShardSchedulerTests {
    /// One row of the table: the variables a task gets, what `auto/N` adds, the shard expected.
    struct Row: Sendable, CustomTestStringConvertible {
        let scheduler: ShardScheduler
        let environment: [String: String]
        let given: Int?
        let index: Int
        let count: Int
        var testDescription: String { "\(scheduler.rawValue) \(environment.sorted { $0.key < $1.key })" }
    }

    static let rows: [Row] = [
        // Kubernetes: 0-based, no count (auto/N gives it).
        Row(scheduler: .kubernetes, environment: ["JOB_COMPLETION_INDEX": "0"], given: 8, index: 1, count: 8),
        Row(scheduler: .kubernetes, environment: ["JOB_COMPLETION_INDEX": "7"], given: 8, index: 8, count: 8),
        // Slurm: (ID - MIN) / STEP + 1, of COUNT.
        Row(
            scheduler: .slurm,
            environment: [
                "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3",
                "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "3",
            ], given: nil, index: 1, count: 3),
        Row(
            scheduler: .slurm,
            environment: [
                "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "4",
                "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "5",
            ], given: nil, index: 1, count: 5),
        Row(
            scheduler: .slurm,
            environment: [
                "SLURM_ARRAY_TASK_ID": "14", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "16",
                "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4",
            ], given: 4, index: 3, count: 4),
        // No STEP: step 1; no MAX: nothing to check the spacing with but the ID.
        Row(
            scheduler: .slurm,
            environment: ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_COUNT": "4"],
            given: nil, index: 3, count: 4),
        // GitLab: 1-based.
        Row(
            scheduler: .gitlab, environment: ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "4"], given: nil, index: 1,
            count: 4),
        Row(
            scheduler: .gitlab, environment: ["CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "4"], given: 4, index: 4, count: 4),
        // CircleCI, Buildkite, Cloud Run: 0-based with a count.
        Row(
            scheduler: .circleci, environment: ["CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "3"], given: nil,
            index: 1, count: 3),
        Row(
            scheduler: .circleci, environment: ["CIRCLE_NODE_INDEX": "2", "CIRCLE_NODE_TOTAL": "3"], given: nil,
            index: 3, count: 3),
        Row(
            scheduler: .buildkite,
            environment: ["BUILDKITE_PARALLEL_JOB": "1", "BUILDKITE_PARALLEL_JOB_COUNT": "2"], given: nil, index: 2,
            count: 2),
        Row(
            scheduler: .cloudRun, environment: ["CLOUD_RUN_TASK_INDEX": "9", "CLOUD_RUN_TASK_COUNT": "10"],
            given: nil, index: 10, count: 10),
        Row(
            scheduler: .cloudRun, environment: ["CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "1"],
            given: nil, index: 1, count: 1),
        // AWS Batch: 0-based, no count.
        Row(scheduler: .awsBatch, environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "0"], given: 2, index: 1, count: 2),
        Row(
            scheduler: .awsBatch, environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "9999"], given: 10000, index: 10000,
            count: 10000),
    ]

    @Test(arguments: rows)
    func eachSchedulersIndexBecomesAOneBasedShard(row: Row) throws {
        // Unrelated variables change nothing (a scheduler is its index variable).
        var environment = row.environment
        environment["SLURM_JOB_ID"] = "77"
        environment["CI_NODE_TOTAL"] = environment["CI_NODE_TOTAL"] ?? "1"
        let shard = try ShardScheduler.shard(environment: environment, count: row.given)
        #expect(shard.index == row.index)
        #expect(shard.count == row.count)
        let origin = try #require(shard.origin)
        #expect(origin.scheduler == row.scheduler)
        // The origin holds exactly the scheduler's variables that were set, as found.
        #expect(
            Dictionary(uniqueKeysWithValues: origin.variables.map { ($0.name, $0.value) })
                == row.environment.filter { row.scheduler.variables.contains($0.key) })
        // Through the option's parsing too.
        let request = try ShardRequest(parsing: row.given.map { "auto/\($0)" } ?? "auto")
        #expect(try request.shard(environment: environment) == shard)
    }

    /// The rows give every scheduler, and every one of the table's index variables is read.
    @Test func theTableCoversEveryScheduler() {
        #expect(Set(ShardSchedulerTests.rows.map(\.scheduler)) == Set(ShardScheduler.allCases))
        #expect(
            ShardScheduler.allCases.map(\.indexVariable) == [
                "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "CI_NODE_INDEX", "CIRCLE_NODE_INDEX",
                "BUILDKITE_PARALLEL_JOB", "CLOUD_RUN_TASK_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX",
            ])
    }

    /// The tasks of one array, each with its own ID, are the shards 1...N, each once.
    @Test func aSlurmArrayWithAStepNumbersItsTasksOneToN() throws {
        let ids = Array(stride(from: 4, through: 16, by: 3))
        let shards = try ids.map { id in
            try ShardScheduler.shard(
                environment: [
                    "SLURM_ARRAY_TASK_ID": String(id), "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": "16",
                    "SLURM_ARRAY_TASK_STEP": "3", "SLURM_ARRAY_TASK_COUNT": String(ids.count),
                ], count: nil)
        }
        #expect(shards.map(\.index) == Array(1...ids.count))
        #expect(shards.allSatisfy { $0.count == ids.count })
    }

    /// A refusal: the environment, `auto/N`'s N, and words the message must hold.
    struct Refused: Sendable, CustomTestStringConvertible {
        let why: String
        let environment: [String: String]
        let given: Int?
        let words: [String]
        var testDescription: String { why }
    }

    static let refusals: [Refused] = [
        Refused(
            why: "no scheduler", environment: ["PATH": "/bin", "SLURM_JOB_ID": "3", "CI_NODE_TOTAL": "4"], given: nil,
            words: [
                "no scheduler's variables", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "\(Setting.shard) 2/8",
            ]),
        Refused(
            why: "an empty index is no scheduler", environment: ["JOB_COMPLETION_INDEX": ""], given: 4,
            words: ["\(Setting.shard) auto/4: no scheduler's variables"]),
        Refused(
            why: "Kubernetes without /N", environment: ["JOB_COMPLETION_INDEX": "3"], given: nil,
            words: ["Kubernetes Indexed Job", "JOB_COMPLETION_INDEX=3", "\(Setting.shard) auto/N", "completions"]),
        Refused(
            why: "AWS Batch without /N", environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "0"], given: nil,
            words: ["AWS Batch array job", "AWS_BATCH_JOB_ARRAY_INDEX=0", "\(Setting.shard) auto/N"]),
        Refused(
            why: "Slurm without a count or /N",
            environment: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1"], given: nil,
            words: ["Slurm job array", "no SLURM_ARRAY_TASK_COUNT", "\(Setting.shard) auto/N"]),
        Refused(
            why: "auto/N against the scheduler's count", environment: ["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4"],
            given: 8, words: ["\(Setting.shard) auto/8", "runs 4 tasks", "CI_NODE_TOTAL=4", "not 8"]),
        Refused(
            why: "Slurm indexes not evenly spaced (MIN, MAX, COUNT)",
            environment: [
                "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7",
                "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "3",
            ], given: nil, words: ["not evenly spaced", "SLURM_ARRAY_TASK_MAX=7", "sbatch -a 0-7"]),
        Refused(
            why: "Slurm ID off the step",
            environment: [
                "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2",
                "SLURM_ARRAY_TASK_COUNT": "4",
            ], given: nil, words: ["not evenly spaced", "SLURM_ARRAY_TASK_ID=3"]),
        Refused(
            why: "Slurm ID below MIN",
            environment: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_COUNT": "2"],
            given: nil, words: ["not evenly spaced"]),
        Refused(
            why: "GitLab index 0 (K below 1)", environment: ["CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"], given: nil,
            words: ["gives shard 0/3", "1 ≤ K ≤ N"]),
        Refused(
            why: "CircleCI index past the count", environment: ["CIRCLE_NODE_INDEX": "3", "CIRCLE_NODE_TOTAL": "3"],
            given: nil, words: ["gives shard 4/3", "CIRCLE_NODE_INDEX=3"]),
        Refused(
            why: "Kubernetes index past auto/N", environment: ["JOB_COMPLETION_INDEX": "8"], given: 8,
            words: ["gives shard 9/8"]),
        Refused(
            why: "a count above 65536", environment: ["CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "70000"],
            given: nil, words: ["gives shard 1/70000", "65536"]),
        Refused(
            why: "a count of 0", environment: ["BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "0"],
            given: nil, words: ["gives shard 1/0"]),
        Refused(
            why: "not a number", environment: ["CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "four"], given: nil,
            words: ["CI_NODE_TOTAL=four", "not a whole number"]),
        Refused(
            why: "a sign", environment: ["CIRCLE_NODE_INDEX": "-1", "CIRCLE_NODE_TOTAL": "3"], given: nil,
            words: ["CIRCLE_NODE_INDEX=-1", "not a whole number"]),
        Refused(
            why: "too many digits", environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "99999999999999999999999"], given: 4,
            words: ["not a whole number"]),
        Refused(
            why: "two schedulers that disagree on K",
            environment: [
                "CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3", "CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "3",
            ], given: nil,
            words: [
                "two schedulers disagree", "GitLab parallel job (CI_NODE_INDEX=2, CI_NODE_TOTAL=3) gives shard 2/3",
                "CircleCI parallel job (CIRCLE_NODE_INDEX=0, CIRCLE_NODE_TOTAL=3) gives 1/3",
            ]),
        Refused(
            why: "two schedulers that disagree on N",
            environment: ["JOB_COMPLETION_INDEX": "0", "CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "2"],
            given: nil, words: ["Kubernetes Indexed Job", "\(Setting.shard) auto/N"]),
        Refused(
            why: "two schedulers that disagree on N, both counted",
            environment: [
                "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2", "CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "3",
            ],
            given: nil, words: ["two schedulers disagree", "gives shard 1/2", "gives 1/3"]),
    ]

    @Test(arguments: refusals)
    func refusalsNameWhatWasFound(refused: Refused) {
        do {
            let shard = try ShardScheduler.shard(environment: refused.environment, count: refused.given)
            Issue.record("\(refused.why): read as \(shard)")
        } catch {
            for word in refused.words {
                #expect(error.message.contains(word), "\(refused.why): \(error.message)")
            }
            #expect(error.message.hasPrefix("\(Setting.shard) auto" + (refused.given.map { "/\($0)" } ?? "") + ": "))
        }
    }

    /// Schedulers that agree give their shard, named after the first in the table.
    @Test func schedulersThatAgreeGiveOneShard() throws {
        let shard = try ShardScheduler.shard(
            environment: [
                "CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "4", "BUILDKITE_PARALLEL_JOB": "2",
                "BUILDKITE_PARALLEL_JOB_COUNT": "4",
            ], count: nil)
        #expect(shard.description == "3/4")
        #expect(shard.origin?.scheduler == .gitlab)
    }

    @Test(arguments: ["auto", "auto/1", "auto/8", "auto/65536", "auto/007"])
    func autoParses(text: String) throws {
        guard case .automatic(let count) = try ShardRequest(parsing: text) else {
            Issue.record("\(text) is not automatic")
            return
        }
        #expect(count == (text == "auto" ? nil : Int(text.dropFirst(5))))
    }

    @Test(arguments: ["auto/", "auto/0", "auto/65537", "auto/x", "auto/-1", "auto/1/2", "Auto", "auto ", "autos"])
    func badAutoSaysHowToWriteIt(text: String) {
        do {
            let request = try ShardRequest(parsing: text)
            Issue.record("\(text) parsed as \(request)")
        } catch {
            #expect(error.message.contains("\(Setting.shard)"), "\(text): \(error.message)")
            #expect(error.message.contains("auto"), "\(text): \(error.message)")
        }
    }

    /// A `K/N` given is the shard whatever the environment holds, with no origin.
    @Test func aGivenShardIgnoresTheScheduler() throws {
        let shard = try ShardRequest(parsing: "2/5").shard(environment: ["CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"])
        #expect(shard.description == "2/5")
        #expect(shard.origin == nil)
    }
}
