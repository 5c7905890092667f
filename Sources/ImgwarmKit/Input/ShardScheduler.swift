/// `--shard auto` and `--shard auto/N`: K and N read from the variables the scheduler that started
/// the process sets, each base brought to imgwarm's 1-based K (docs/usage.md, "Shards from the
/// scheduler").
public enum ShardScheduler: String, CaseIterable, Sendable, Equatable {
    case kubernetes
    case slurm
    case gitlab
    case circleci
    case buildkite
    case cloudRun = "cloud-run"
    case awsBatch = "aws-batch"

    /// The scheduler as its documentation names it.
    public var name: String {
        switch self {
        case .kubernetes: return "Kubernetes Indexed Job"
        case .slurm: return "Slurm job array"
        case .gitlab: return "GitLab parallel job"
        case .circleci: return "CircleCI parallel job"
        case .buildkite: return "Buildkite parallel job"
        case .cloudRun: return "Cloud Run job"
        case .awsBatch: return "AWS Batch array job"
        }
    }

    /// The variable whose presence says the process runs under this scheduler.
    public var indexVariable: String {
        switch self {
        case .kubernetes: return "JOB_COMPLETION_INDEX"
        case .slurm: return "SLURM_ARRAY_TASK_ID"
        case .gitlab: return "CI_NODE_INDEX"
        case .circleci: return "CIRCLE_NODE_INDEX"
        case .buildkite: return "BUILDKITE_PARALLEL_JOB"
        case .cloudRun: return "CLOUD_RUN_TASK_INDEX"
        case .awsBatch: return "AWS_BATCH_JOB_ARRAY_INDEX"
        }
    }

    /// The variable holding the number of tasks; nil where the scheduler gives none to the task
    /// (then `auto/N` gives it).
    public var countVariable: String? {
        switch self {
        case .kubernetes, .awsBatch: return nil
        case .slurm: return "SLURM_ARRAY_TASK_COUNT"
        case .gitlab: return "CI_NODE_TOTAL"
        case .circleci: return "CIRCLE_NODE_TOTAL"
        case .buildkite: return "BUILDKITE_PARALLEL_JOB_COUNT"
        case .cloudRun: return "CLOUD_RUN_TASK_COUNT"
        }
    }

    /// What N is under this scheduler, for the message that asks for `auto/N`.
    var countName: String {
        switch self {
        case .kubernetes: return "the Job's completions"
        case .awsBatch: return "the array job's size"
        default: return "the number of tasks"
        }
    }

    /// Every variable this scheduler's K and N are read from, in the order messages name them.
    var variables: [String] {
        switch self {
        case .slurm:
            return [
                "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP",
                "SLURM_ARRAY_TASK_COUNT",
            ]
        default:
            return [indexVariable] + (countVariable.map { [$0] } ?? [])
        }
    }

    /// Where a shard's K and N came from: the scheduler and the values read, in `variables`' order.
    public struct Origin: Sendable, Equatable {
        public let scheduler: ShardScheduler
        public let variables: [Variable]

        public struct Variable: Sendable, Equatable {
            public let name: String
            public let value: String
        }

        /// `SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_MIN=0, ...`.
        public var values: String { variables.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") }

        /// `Slurm job array (SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_MIN=0, ...)`.
        public var description: String { "\(scheduler.name) (\(values))" }
    }

    /// Why `--shard auto` found no shard: a usage error (exit 2) naming what was found.
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The shard of this process under the scheduler whose variables `environment` holds.
    ///
    /// `count` is `auto/N`'s N. Refused: no scheduler's variables; a value that is not a whole
    /// number; an index without a count and no N; an N the scheduler's own count contradicts; a
    /// Slurm array whose indexes are not evenly spaced; K outside 1...N; two schedulers that
    /// disagree on K or N. Schedulers that agree give one shard, named after the first in
    /// `allCases`' order. An empty variable counts as unset (`export X=` in a wrapper).
    public static func shard(environment: [String: String], count: Int?) throws(Refusal) -> Shard {
        let spelling = count.map { "\(Setting.shard) auto/\($0)" } ?? "\(Setting.shard) auto"
        var found: [Shard] = []
        for scheduler in allCases where !(environment[scheduler.indexVariable] ?? "").isEmpty {
            found.append(try scheduler.shard(environment: environment, count: count, spelling: spelling))
        }
        guard let first = found.first else {
            let names = allCases.map(\.indexVariable).joined(separator: ", ")
            throw Refusal(
                message:
                    "\(spelling): no scheduler's variables in the environment (looked for \(names)); outside a scheduler give the shard, e.g. \(Setting.shard) 2/8"
            )
        }
        for other in found.dropFirst() where other.index != first.index || other.count != first.count {
            throw Refusal(
                message:
                    "\(spelling): two schedulers disagree: \(first.origin!.description) gives shard \(first), \(other.origin!.description) gives \(other); give the shard, e.g. \(Setting.shard) \(first)"
            )
        }
        return first
    }

    /// This scheduler's shard, read from `environment` (which holds its index variable).
    func shard(environment: [String: String], count given: Int?, spelling: String) throws(Refusal) -> Shard {
        let read = variables.compactMap { name in
            environment[name].flatMap { $0.isEmpty ? nil : Origin.Variable(name: name, value: $0) }
        }
        let origin = Origin(scheduler: self, variables: read)
        func number(_ name: String) throws(Refusal) -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text) else {
                throw Refusal(message: "\(spelling): \(name)=\(text) from the \(self.name) is not a whole number")
            }
            return value
        }
        let rawIndex = try number(indexVariable)!
        let index: Int
        switch self {
        case .slurm:
            let minimum = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = max(try number("SLURM_ARRAY_TASK_STEP") ?? 1, 1)
            let evenlySpaced: Bool
            if let maximum = try number("SLURM_ARRAY_TASK_MAX"), let total = try number("SLURM_ARRAY_TASK_COUNT") {
                evenlySpaced = maximum - minimum == (total - 1) * step
            } else {
                evenlySpaced = true
            }
            guard rawIndex >= minimum, (rawIndex - minimum) % step == 0, evenlySpaced else {
                throw Refusal(
                    message:
                        "\(spelling): the indexes of this \(name) are not evenly spaced (\(origin.values)), so its task IDs do not number the shards; submit the array as a range (sbatch -a 0-7, or -a 0-14:2), or give the shard, e.g. \(Setting.shard) 2/8"
                )
            }
            index = (rawIndex - minimum) / step + 1
        case .gitlab:
            index = rawIndex
        default:
            index = rawIndex + 1
        }
        var own: Int?
        if let countVariable { own = try number(countVariable) }
        let count: Int
        switch (own, given) {
        case (nil, nil):
            let count = countVariable.map { "no \($0)" } ?? "no count of tasks to a task"
            throw Refusal(
                message:
                    "\(spelling): the \(name) gives this task's index (\(origin.values)) and \(count): write \(Setting.shard) auto/N, N being \(countName), e.g. \(Setting.shard) auto/8"
            )
        case (let own?, let given?) where own != given:
            throw Refusal(
                message:
                    "\(spelling): the \(name) runs \(own) tasks (\(origin.values)), not \(given): write \(Setting.shard) auto, or auto/\(own)"
            )
        case (let own?, _):
            count = own
        case (nil, let given?):
            count = given
        }
        guard (1...Shard.maxCount).contains(count), (1...count).contains(index) else {
            throw Refusal(
                message:
                    "\(spelling): the \(name) gives shard \(index)/\(count) (\(origin.values)); K/N needs 1 ≤ K ≤ N ≤ \(Shard.maxCount)"
            )
        }
        do {
            return try Shard(index: index, count: count, origin: origin)
        } catch {
            throw Refusal(message: error.message)
        }
    }
}
