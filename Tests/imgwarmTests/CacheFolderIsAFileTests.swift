import Foundation
import TestSupport
import Testing

/// A file given as the cache folder (`--cache-dir somefile`, `--disk-cache-path somefile`): every
/// command that reads or writes the cache says it in one sentence, naming the file, and exits 3.
/// (prefetch said "somefile is not a folder", stats and clean "cannot read
/// somefile/com.hackemist.SDImageCache/default: stat(…) failed: Not a directory", a dry run
/// "does not exist yet: every URL would be fetched" and exit 0; verify printed a miss per key and
/// its verdict, and a prefetch "nothing failed" before the error.)
@Suite struct CacheFolderIsAFileTests {
    static let commands: [[String]] = [
        ["prefetch", "list.txt"], ["prefetch", "--dry-run", "list.txt"], ["stats"], ["stats", "--json"],
        ["clean", "--max-size", "1M"], ["verify", "list.txt"],
    ]

    @Test(arguments: commands, ["--cache-dir", "--disk-cache-path"])
    func oneClearError(command: [String], option: String) throws {
        for format in ["sdwebimage", "glide"] {
            let temp = try TemporaryFolder()
            let file = try temp.write("somefile", Data("not a folder\n".utf8))
            _ = try temp.write("list.txt", Data("http://127.0.0.1:1/a.jpg\n".utf8))
            let arguments = command.map { $0 == "list.txt" ? temp.path("list.txt") : $0 }
            let result = try CLI.run(
                arguments + ["--cache-format", format, option, file], home: temp.path)
            let context = "\(format) \(command) \(option): \(result.stderrText)"
            #expect(result.status == 3, "\(context)")
            let lines = result.stderrText.split(separator: "\n").filter { $0.contains("is not a folder") }
            #expect(lines.count == 1, "\(context)")
            #expect(lines.first == "imgwarm: \(file) is not a folder", "\(context)")
            // Issue 48: nothing else of the keys (verify printed a miss per key, and a summary),
            // and no word of failures beside exit 3 (prefetch said "nothing failed").
            if command.first == "verify" {
                #expect(result.stdoutText.isEmpty, "\(context) \(result.stdoutText)")
                #expect(result.stderrText == "imgwarm: \(file) is not a folder\n", "\(context)")
            }
            #expect(!result.stderrText.contains("nothing failed"), "\(context)")
            #expect(!result.stderrText.contains("Not a directory"), "\(context)")
            #expect(!result.stderrText.contains("does not exist yet"), "\(context)")
            #expect(!result.stderrText.contains("cannot read"), "\(context)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("not a folder\n".utf8))
        }
    }
}
