import Foundation

/// OkHttp's own classes on this machine (Debian's libokhttp-java: OkHttp 3.13.1 with okio 1.16,
/// run by the JDK), for the tests that check imgwarm's OkHttp cache against the library itself
/// (`Tests/Fixtures/okhttp/CacheProbe.java`, compiled once per test process into a temporary folder).
public enum OkHttpJava {
    public static let jars = ["/usr/share/java/okhttp.jar", "/usr/share/java/okio.jar"]
    static let javaTools = ["/usr/bin/java", "/usr/bin/javac"]

    /// True when java, javac and the jars are installed (`scripts/install-deps.sh`).
    public static var available: Bool {
        (jars + javaTools).allSatisfy { FileManager.default.isExecutableFile(atPath: $0) || isFile($0) }
    }

    /// Why the tests are skipped when `available` is false.
    public static let missing =
        "needs java, javac and Debian's libokhttp-java (/usr/share/java/okhttp.jar, okio.jar): scripts/install-deps.sh"

    static func isFile(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && !folder.boolValue
    }

    /// The folder holding `CacheProbe.class`, compiled on first use.
    static let classes: Result<String, Error> = Result {
        // One folder per version of the source, reused by later test processes.
        let source = Fixtures.root.appendingPathComponent("okhttp/CacheProbe.java").path
        let text = try String(contentsOfFile: source, encoding: .utf8)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "imgwarm-okhttp-probe-\(text.utf8.reduce(UInt64(5381)) { ($0 &* 33) ^ UInt64($1) })")
        let compiled = folder.appendingPathComponent("CacheProbe.class").path
        if FileManager.default.fileExists(atPath: compiled) { return folder.path }
        // Compiled beside it, then renamed into place whole: another test process never sees half.
        let scratch = URL(fileURLWithPath: folder.path + "-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/javac"),
            ["-cp", jars.joined(separator: ":"), "-d", scratch.path, source], timeout: 300)
        guard result.status == 0 else { throw Failure(text: "javac failed: \(result.stderrText)") }
        if rename(scratch.path, folder.path) != 0 { try? FileManager.default.removeItem(at: scratch) }
        return folder.path
    }

    struct Failure: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    /// Runs `CacheProbe <arguments>` with `urls` on its input; its output lines.
    public static func probe(_ arguments: [String], urls: [String]) throws -> [String] {
        let classes = try classes.get()
        let input = urls.map { Data($0.utf8).map { String(format: "%02x", $0) }.joined() + "\n" }.joined()
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/java"),
            ["-cp", (jars + [classes]).joined(separator: ":"), "CacheProbe"] + arguments, stdin: Data(input.utf8),
            timeout: 300)
        guard result.status == 0 else { throw Failure(text: "CacheProbe failed: \(result.stderrText)") }
        return result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// `HttpUrl.parse(url).toString()` of each URL (nil when OkHttp refuses it).
    public static func canonical(_ urls: [String]) throws -> [String?] {
        try probe(["url"], urls: urls).map { $0 == "null" ? nil : $0 }
    }

    /// What the app gets for each URL from the cache in `folder` with no network: the status and
    /// body MD5 of a `CacheControl.FORCE_CACHE` request, then of a plain one (`offline` when
    /// OkHttp went to the network).
    public struct Read: Equatable, CustomStringConvertible {
        public var forced: String
        public var forcedMD5: String
        public var plain: String
        public var plainMD5: String
        public var description: String { "\(forced) \(forcedMD5) \(plain) \(plainMD5)" }
    }

    public static func read(folder: String, urls: [String]) throws -> [Read] {
        try probe(["read", folder], urls: urls).map { line in
            let parts = line.split(separator: " ").map(String.init)
            return Read(forced: parts[0], forcedMD5: parts[1], plain: parts[2], plainMD5: parts[3])
        }
    }

    /// Fetches each URL over the network through OkHttp's cache in `folder`, as the app does;
    /// the status and body MD5 of each.
    public static func fetch(folder: String, urls: [String]) throws -> [String] {
        try probe(["fetch", folder], urls: urls)
    }
}
