import Foundation
import TestSupport
import Testing

/// docs/ARCHITECTURE.md's "a URL flows Input → Scheduling → Fetching → Validation → Cache → State
/// → Reports", checked on the sources (subfolders included): no stage names a type of a later
/// one; `Outcome` (an entry's result and failure classes) is the vocabulary all of them speak
/// and names no stage but Input; the jobs coordinate and are named by none: `Pipeline` (prefetch
/// and its parts), `Jobs` (the other commands' engine jobs), `Device` (adb, pack, push, pull),
/// and no one of the three names another;
/// `Support` (values and helpers every stage uses) names no stage at all.
@Suite struct StageDependencyTests {
    /// The folders of jobs: they coordinate the stages, and none names another.
    static let coordinators = ["Pipeline", "Jobs", "Device"]

    static let stages =
        ["Outcome", "Input", "Scheduling", "Fetching", "Validation", "Cache", "State", "Reports"] + coordinators

    static let rules: [(stage: String, mustNotName: [String])] =
        [
            // What every stage may use: it can use none of them.
            ("Support", stages),
            // The outcome of an entry and its failure classes: the values every stage speaks.
            ("Outcome", ["Scheduling", "Fetching", "Validation", "Cache", "State", "Reports"] + coordinators),
            ("Input", ["Scheduling", "Fetching", "Validation", "Cache", "State", "Reports"] + coordinators),
            ("Scheduling", ["Validation", "Cache", "State", "Reports"] + coordinators),
            ("Fetching", ["Validation", "Cache", "State", "Reports"] + coordinators),
            ("Validation", ["Cache", "State", "Reports"] + coordinators),
            ("Cache", ["State", "Reports"] + coordinators),
            ("State", ["Reports"] + coordinators),
            ("Reports", coordinators),
        ] + coordinators.map { folder in (folder, coordinators.filter { $0 != folder }) }

    /// Names a stage may use from a later one, each with its reason.
    static let exceptions: [String: Set<String>] = [
        // An entry's result says which image format it stored: a value, named not used.
        "Outcome": ["ImageFormat"]
    ]

    static let root = Fixtures.repositoryRoot.appendingPathComponent("Sources/ImgwarmKit")

    /// The code lines of every Swift file of `stage` (comment lines left out), by file name.
    static func codeLines(_ stage: String) throws -> [(file: String, line: String)] {
        // Subfolders too (`Cache/Formats/<format>/`).
        try SourceLines.code(in: "ImgwarmKit/" + stage).map { ("\(stage)/\($0.file)", $0.line) }
    }

    /// The names of the types declared at the top level of `stage`'s files.
    static func declaredTypes(_ stage: String) throws -> Set<String> {
        let modifiers: Set<Substring> = ["public", "package", "internal", "final", "private", "fileprivate"]
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "actor"]
        var names: Set<String> = []
        for (_, line) in try codeLines(stage) where !(line.first?.isWhitespace ?? true) {
            let words = line.split(separator: " ")
            guard let kind = words.firstIndex(where: { kinds.contains($0) }), kind + 1 < words.count,
                words[..<kind].allSatisfy({ modifiers.contains($0) })
            else { continue }
            names.insert(String(words[kind + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
        }
        return names
    }

    static func identifiers(_ line: String) -> Set<String> {
        Set(line.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }

    @Test func laterStagesAreNotNamedByEarlierOnes() throws {
        for (stage, later) in Self.rules {
            var forbidden: [String: String] = [:]
            for other in later {
                let names = try Self.declaredTypes(other)
                #expect(!names.isEmpty, "\(other)'s types were found")
                for name in names { forbidden[name] = other }
            }
            let lines = try Self.codeLines(stage)
            #expect(!lines.isEmpty, "\(stage)'s sources were found")
            for violation in Self.violations(lines, forbidden: forbidden, exceptions: Self.exceptions[stage] ?? []) {
                Issue.record(Comment(rawValue: violation))
            }
        }
    }

    /// Each line of `lines` that names a type of `forbidden` (type → its stage), but `exceptions`.
    static func violations(
        _ lines: [(file: String, line: String)], forbidden: [String: String], exceptions: Set<String>
    )
        -> [String]
    {
        var found: [String] = []
        for (file, line) in lines {
            for name in identifiers(line).sorted() where !exceptions.contains(name) {
                if let other = forbidden[name] {
                    found.append("\(file) names \(other)'s \(name): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return found
    }

    /// `Support` had no rule, so a helper there could name any stage's type unseen: now every
    /// stage is forbidden to it, and a Support line naming a Cache type is caught.
    @Test func supportNamesNoStage() throws {
        let rule = try #require(Self.rules.first { $0.stage == "Support" })
        #expect(Set(rule.mustNotName) == Set(Self.stages))
        #expect(Set(Self.rules.map(\.stage)) == Set(Self.stages + ["Support"]))
        let cacheTypes = try Self.declaredTypes("Cache")
        #expect(cacheTypes.contains("CacheEntry"))
        let forbidden = Dictionary(uniqueKeysWithValues: cacheTypes.map { ($0, "Cache") })
        let crafted = [("Support/Helper.swift", "    func size(of entry: CacheEntry) -> UInt64 { 0 }")]
        #expect(
            Self.violations(crafted, forbidden: forbidden, exceptions: [])
                == ["Support/Helper.swift names Cache's CacheEntry: func size(of entry: CacheEntry) -> UInt64 { 0 }"])
        #expect(
            Self.violations([("Support/Helper.swift", "let x = Expiry.never")], forbidden: forbidden, exceptions: [])
                .isEmpty)
    }

    /// `Pipeline/` holds prefetch only (issue 51): every file there is a part of the prefetch job
    /// (its name says so, or it is one of the parts only a prefetch uses), and the other
    /// commands' jobs are in `Jobs/` and `Device/`.
    @Test func pipelineHoldsPrefetchOnly() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Pipeline").path)
        let parts: Set<String> = [
            "EntryStart.swift", "SlotPolicy+Prefetch.swift", "TransferRouter.swift", "ValidationPool.swift",
            "FormatFanOut.swift", "SharedBodies.swift",
        ]
        #expect(files.count > 10)
        #expect(files.filter { !$0.hasPrefix("Prefetch") && !parts.contains($0) }.isEmpty, "\(files.sorted())")
        #expect(try Self.declaredTypes("Jobs").isSuperset(of: ["CleanJob", "VerifyJob", "StatsJob", "PathJob"]))
        #expect(try Self.declaredTypes("Device").isSuperset(of: ["AndroidDevice", "PackJob", "PushJob", "PullJob"]))
    }
}
