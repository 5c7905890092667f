import Foundation
import TestSupport
import Testing

/// "This entry's bytes come from a file or a HAR, not the network" has one owner, `EntrySource`
/// (issue 51, item 1): outside Input (which gives an entry its `BodySource`) and Fetching
/// (`LocalBodies`, which reads it), no code line of the engine asks the body itself
/// (`entry.body != nil`, `.body == nil`, `.body?.`, `entry.body`) or names `BodySource`: it asks
/// `PendingEntry.source`'s rules.
@Suite struct EntrySourceOwnerTests {
    static let owners = ["Input/", "Fetching/"]

    /// What a code line asks of the body, if anything.
    static func bodyQuestion(in line: String) -> String? {
        for asked in [".body != nil", ".body == nil", ".body?."] where line.contains(asked) { return asked }
        var rest = line[...]
        while let range = rest.range(of: "entry.body") {
            let next = rest[range.upperBound...].first
            if !(next.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false) { return "entry.body" }
            rest = rest[range.upperBound...]
        }
        let words = Set(line.split { !($0.isLetter || $0.isNumber || $0 == "_") })
        return words.contains("BodySource") ? "BodySource" : nil
    }

    @Test func noStageButInputAndFetchingAsksTheBody() throws {
        let lines = try SourceLines.code(in: "ImgwarmKit")
        let files = Set(lines.map(\.file))
        #expect(files.contains("Pipeline/PrefetchJob+Download.swift"), "the engine's sources were found")
        #expect(files.contains("Input/EntrySource.swift"))
        for (file, number, line) in lines where !Self.owners.contains(where: file.hasPrefix) {
            if let asked = Self.bodyQuestion(in: line) {
                Issue.record("\(file):\(number) asks `\(asked)`; ask the entry's `EntrySource` instead: \(line)")
            }
        }
    }

    /// The check finds each form of the question, and not what only looks like it.
    @Test func theCheckFindsTheBodyQuestion() {
        #expect(Self.bodyQuestion(in: "        if entry.body != nil { return false }") == ".body != nil")
        #expect(Self.bodyQuestion(in: "    finished.entry.body == nil ? [] : x") == ".body == nil")
        #expect(Self.bodyQuestion(in: "    s = job.entry.body?.isFile == true ? nil : s") == ".body?.")
        #expect(Self.bodyQuestion(in: "    if case .missing(let r) = entry.body {") == "entry.body")
        #expect(Self.bodyQuestion(in: "    let b: BodySource? = nil") == "BodySource")
        #expect(Self.bodyQuestion(in: "    if entry.source.isRequested {") == nil)
        #expect(Self.bodyQuestion(in: "    let n = entry.bodyCount + transfer.body.count") == nil)
        #expect(Self.bodyQuestion(in: "    case .success(let body) where body.status == 304:") == nil)
    }
}
