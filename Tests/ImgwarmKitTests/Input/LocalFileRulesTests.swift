import Foundation
import ImgwarmSystem
import TestSupport
import Testing

@testable import ImgwarmKit

/// JSON Lines `"file"` (issue 33, item 4): its parsing, the path rules (`LocalFileRules`), the
/// spool carrying the body source, and `LocalBodies` reading a file as a transfer's body.
@Suite struct LocalFileRulesTests {
    func json(_ text: String) -> ListLine { ListLine.parse(Array(text.utf8)[...], format: .jsonl, truncated: false) }

    func reason(_ line: ListLine) -> String {
        if case .invalid(let reason, _) = line { return reason }
        return ""
    }

    @Test func fileIsParsedBesideKeyAndPriority() {
        #expect(
            json(#"{"url": "https://a.com/x.png", "file": "imgs/x.png"}"#)
                == .file(url: "https://a.com/x.png", key: nil, priority: nil, path: "imgs/x.png"))
        #expect(
            json(#"{"file": "x.png", "url": "https://a.com/x.png", "key": "k", "priority": "high"}"#)
                == .file(url: "https://a.com/x.png", key: "k", priority: .high, path: "x.png"))
        // Without "file" the line is a URL line as before.
        #expect(json(#"{"url": "https://a.com/x.png"}"#) == .url(url: "https://a.com/x.png", key: nil, priority: nil))
    }

    @Test(arguments: [
        (#"{"url": "https://a.com/x.png", "file": 3}"#, #""file" must be a string, not a number"#),
        (#"{"url": "https://a.com/x.png", "file": null}"#, #""file" must be a string, not null"#),
        (#"{"url": "https://a.com/x.png", "file": ["a"]}"#, #""file" must be a string, not an array"#),
        (#"{"url": "https://a.com/x.png", "file": ""}"#, #""file" is empty"#),
        (#"{"url": "https://a.com/x.png", "file": "a\u0000b"}"#, #""file" contains a NUL character"#),
        (#"{"file": "x.png"}"#, #"the object has no "url""#),
    ])
    func badFilesSayWhy(text: String, expected: String) {
        #expect(reason(json(text)) == expected, "\(text)")
    }

    /// A folder with a list folder `lists/` holding `imgs/a.png`, and `outside/b.png` beside it.
    struct Tree {
        let temp: TemporaryFolder
        let list: String
        let root: String

        init() throws {
            temp = try TemporaryFolder()
            list = try temp.write("lists/list.jsonl", Data())
            _ = try temp.write("lists/imgs/a.png", Data([1]))
            _ = try temp.write("outside/b.png", Data([2]))
            root = FileSystem.resolvedPath(temp.path)!
        }

        func resolve(_ path: String, root: String? = nil, list: String? = nil) -> Result<String, LocalFileRules.Refusal>
        {
            LocalFileRules(root: root).resolve(path, listPath: list ?? self.list)
        }

        func refusal(_ path: String, root: String? = nil) -> String {
            if case .failure(let refusal) = resolve(path, root: root) { return refusal.message }
            return ""
        }
    }

    @Test func relativePathsResolveAgainstTheListsFolder() throws {
        let tree = try Tree()
        #expect(try tree.resolve("imgs/a.png").get() == tree.root + "/lists/imgs/a.png")
        #expect(try tree.resolve("./imgs//a.png").get() == tree.root + "/lists/imgs/a.png")
    }

    @Test func pathsLeavingTheListsFolderAreRefused() throws {
        let tree = try Tree()
        #expect(tree.refusal("../outside/b.png").contains("leaves the list's folder"))
        #expect(tree.refusal("imgs/../imgs/a.png").contains("leaves the list's folder"))
        #expect(tree.refusal(tree.root + "/lists/imgs/a.png").contains("is an absolute path"))
        #expect(tree.refusal("missing.png").contains("No such file or directory"))
    }

    @Test func aSymbolicLinkPointingOutIsRefusedOneInsideIsFollowed() throws {
        let tree = try Tree()
        try FileManager.default.createSymbolicLink(
            atPath: tree.temp.path("lists/imgs/out.png"), withDestinationPath: "../../outside/b.png")
        try FileManager.default.createSymbolicLink(
            atPath: tree.temp.path("lists/in.png"), withDestinationPath: "imgs/a.png")
        #expect(tree.refusal("imgs/out.png").contains("outside the list's folder"), "\(tree.refusal("imgs/out.png"))")
        #expect(try tree.resolve("in.png").get() == tree.root + "/lists/imgs/a.png")
    }

    @Test func filesRootAllowsWhatItHoldsAndResolvesAgainstItself() throws {
        let tree = try Tree()
        try FileManager.default.createSymbolicLink(
            atPath: tree.temp.path("lists/imgs/out.png"), withDestinationPath: "../../outside/b.png")
        let root = tree.temp.path
        #expect(try tree.resolve("outside/b.png", root: root).get() == tree.root + "/outside/b.png")
        #expect(try tree.resolve(tree.temp.path("outside/b.png"), root: root).get() == tree.root + "/outside/b.png")
        #expect(try tree.resolve("lists/imgs/out.png", root: root).get() == tree.root + "/outside/b.png")
        #expect(try tree.resolve("lists/../outside/b.png", root: root).get() == tree.root + "/outside/b.png")
        // Still nothing outside the root.
        let narrow = tree.temp.path("lists")
        #expect(tree.refusal("../outside/b.png", root: narrow).contains("outside \(Setting.filesRoot) "))
        #expect(tree.refusal("/etc/passwd", root: narrow).contains("outside \(Setting.filesRoot) "))
        #expect(tree.refusal("imgs/out.png", root: narrow).contains("outside \(Setting.filesRoot) "))
    }

    @Test func onlyRegularFilesAreRead() throws {
        let tree = try Tree()
        #expect(mkfifo(tree.temp.path("lists/fifo"), 0o644) == 0)
        #expect(tree.refusal("fifo").contains("not a regular file"))
        #expect(tree.refusal("imgs").contains("is a folder, not a regular file"))
        #expect(tree.refusal("/dev/null", root: "/dev").contains("not a regular file"))
    }

    @Test func standardInputsFolderIsTheCurrentOne() {
        #expect(LocalFileRules.folder(of: "-") == ".")
        #expect(LocalFileRules.folder(of: "list.jsonl") == ".")
        #expect(LocalFileRules.folder(of: "/list.jsonl") == "/")
        #expect(LocalFileRules.folder(of: "a/b/list.jsonl") == "a/b")
    }

    /// The spool keeps the body source of each entry, beside entries without one and with keys.
    @Test func theSpoolCarriesTheBodySource() throws {
        let temp = try TemporaryFolder()
        let spool = try EntrySpool(priority: .normal, folder: temp.path)
        try spool.append(line: 1, input: 0, url: "https://a/1", key: "https://a/1", body: .file("/x/1.png"))
        try spool.append(line: 2, input: 0, url: "https://a/2", key: "https://a/2")
        try spool.append(line: 3, input: 1, url: "https://a/3", key: "k3", body: .file("/x/é 3.png"))
        try spool.finishWriting(order: .fifo)
        var entries: [PendingEntry] = []
        while let entry = spool.next() { entries.append(entry) }
        #expect(entries.map(\.url) == ["https://a/1", "https://a/2", "https://a/3"])
        #expect(entries.map(\.key) == ["https://a/1", "https://a/2", "k3"])
        #expect(entries.map(\.body) == [.file("/x/1.png"), nil, .file("/x/é 3.png")])
    }

    /// `LocalBodies` completes a started entry at once: small bodies in memory, larger ones in a
    /// temporary file, too large, empty or unreadable ones as the failures a download gets.
    @Test func localBodiesReadInMemoryOrSpilled() throws {
        let temp = try TemporaryFolder()
        let small = try temp.write("small.bin", Data([1, 2, 3]))
        let large = try temp.write("large.bin", Data(repeating: 7, count: 3000))
        let empty = try temp.write("empty.bin", Data())
        let spills = temp.path("spill")
        try FileManager.default.createDirectory(atPath: spills, withIntermediateDirectories: true)
        let bodies = LocalBodies(maxBytes: 2000, memoryLimit: 4, spillFolder: spills, spillPrefix: "t-")
        func entry(_ path: String, line: Int) -> PendingEntry {
            var entry = PendingEntry(line: line, input: 0, url: "https://a/\(line)", priority: .normal)
            entry.body = .file(path)
            return entry
        }
        bodies.start(entry(small, line: 1))
        #expect(bodies.inFlight == 1)
        var done = bodies.completions()
        #expect(bodies.inFlight == 0)
        let body = try done[0].result.get()
        #expect(body.bytes == [1, 2, 3] && body.spillName == nil && body.count == 3 && body.status == 200)

        let big = LocalBodies(maxBytes: 1 << 20, memoryLimit: 1000, spillFolder: spills, spillPrefix: "t-")
        big.start(entry(large, line: 2))
        let spilled = try big.completions()[0].result.get()
        let name = try #require(spilled.spillName)
        #expect(spilled.bytes.isEmpty && spilled.count == 3000)
        #expect(FileManager.default.contents(atPath: spills + "/" + name) == Data(repeating: 7, count: 3000))

        bodies.start(entry(large, line: 3))
        bodies.start(entry(empty, line: 4))
        bodies.start(entry(temp.path("gone.bin"), line: 5))
        done = bodies.completions()
        let reasons = done.map { (done) -> FailureReason? in
            if case .failure(let failure) = done.result { return failure.reason }
            return nil
        }
        #expect(reasons == [.tooLarge, .emptyBody, .transferFailed])
        // Nothing left behind by the failures, and an abort removes what was read.
        big.start(entry(large, line: 6))
        #expect(big.abortAll().map(\.line) == [6])
        #expect(try FileManager.default.contentsOfDirectory(atPath: spills) == [name])
    }
}
