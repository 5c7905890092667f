import Foundation
import TestSupport
import Testing

/// What `--report PATH` does with what is already at PATH (issue 21): devices and FIFOs are
/// written into, never replaced; a regular file is replaced atomically and keeps its permission
/// bits; another user's file is refused before any work. For `prefetch` and `clean` alike.
@Suite(.startsTheBinary) struct ReportDestinationTests {
    /// The two commands that write `--report`, each with the arguments of a run that does little.
    func commands(_ h: PrefetchHarness) throws -> [(name: String, arguments: [String])] {
        let list = try h.temp.write("list.txt", Data((h.url("/img/photo.jpg") + "\n").utf8))
        return [
            ("prefetch", ["prefetch", "--disk-cache-path", h.folder, list]),
            ("clean", ["clean", "--disk-cache-path", h.folder, "--max-age", "0"]),
        ]
    }

    func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    /// A FIFO receives the JSON and stays a FIFO.
    @Test func aFIFOIsWrittenIntoAndStaysAFIFO() throws {
        let h = try PrefetchHarness()
        for command in try commands(h) {
            let fifo = h.temp.path("\(command.name).fifo")
            #expect(mkfifo(fifo, 0o600) == 0)
            let reader = try BackgroundProcess(
                URL(fileURLWithPath: "/bin/cat"), [fifo], environment: [:], folder: h.temp.url)
            let run = try h.run(command.arguments + ["--report", fifo])
            #expect(run.status == 0, "\(command.name): \(run.stderr)")
            #expect(reader.wait().status == 0)
            let document = try JSONSerialization.jsonObject(with: Data(reader.stdout.utf8)) as? [String: Any]
            #expect(document?["command"] as? String == command.name, "\(reader.stdout)")
            #expect(status(fifo).map { $0.st_mode & S_IFMT } == S_IFIFO, "\(command.name): still a FIFO")
        }
    }

    /// `/dev/null` stays the character device it is (as root the old code replaced it with JSON;
    /// as another user it failed with exit code 2, so the exit code is checked for everyone).
    @Test func devNullStaysACharacterDevice() throws {
        let h = try PrefetchHarness()
        let before = try #require(status("/dev/null"))
        // A machine whose /dev/null some older tool already replaced cannot show it (and a regular
        // file there is rightly replaced atomically): say so instead.
        try #require(before.st_mode & S_IFMT == S_IFCHR, "/dev/null is not a character device on this machine")
        for command in try commands(h) {
            let run = try h.run(command.arguments + ["--report", "/dev/null"])
            #expect(run.status == 0, "\(command.name): \(run.stderr)")
            let after = try #require(status("/dev/null"))
            #expect(after.st_mode & S_IFMT == S_IFCHR, "\(command.name): /dev/null is still a character device")
            #expect(after.st_rdev == before.st_rdev && after.st_ino == before.st_ino)
        }
    }

    /// An existing report of mode 0600 is replaced by one of mode 0600; through a symbolic link
    /// the link stays and its target is replaced.
    @Test func anExistingReportKeepsItsPermissions() throws {
        let h = try PrefetchHarness()
        for command in try commands(h) {
            let target = try h.temp.write("\(command.name).json", Data("old".utf8))
            #expect(chmod(target, 0o600) == 0)
            let link = h.temp.path("\(command.name)-link.json")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            for path in [target, link] {
                let run = try h.run(command.arguments + ["--report", path])
                #expect(run.status == 0, "\(command.name): \(run.stderr)")
                let info = try #require(status(target))
                #expect(
                    info.st_mode & 0o7777 == 0o600, "\(command.name) \(path): mode \(String(info.st_mode, radix: 8))")
                #expect(info.st_mode & S_IFMT == S_IFREG)
                let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: target)))
                #expect((document as? [String: Any])?["command"] as? String == command.name)
            }
            #expect(status(link).map { $0.st_mode & S_IFMT } == S_IFLNK, "the link is still a link")
        }
    }

    /// A new report is created as before: 0644 less the umask.
    @Test func aNewReportIsCreated() throws {
        let h = try PrefetchHarness()
        for command in try commands(h) {
            let path = h.temp.path("new-\(command.name).json")
            let run = try h.run(command.arguments + ["--report", path])
            #expect(run.status == 0, "\(command.name): \(run.stderr)")
            let info = try #require(status(path))
            #expect(info.st_mode & S_IFMT == S_IFREG)
            #expect(info.st_mode & 0o022 == 0, "not writable by others")
        }
    }

    /// Another user's file is refused with exit code 2 before any download or deletion, and is
    /// left as it was. Needs root to give a file to another user.
    @Test(.enabled(if: geteuid() == 0, "needs root to chown a file to another user"))
    func anotherUsersFileIsRefused() throws {
        let h = try PrefetchHarness()
        for command in try commands(h) {
            let path = try h.temp.write("theirs-\(command.name).json", Data("theirs".utf8))
            #expect(chown(path, 65534, 65534) == 0)
            #expect(chmod(path, 0o600) == 0)
            let run = try h.run(command.arguments + ["--report", path])
            #expect(run.status == 2, "\(command.name): \(run.stderr)")
            #expect(run.stderr.contains("belongs to another user (uid 65534)"), "\(run.stderr)")
            let info = try #require(status(path))
            #expect(info.st_uid == 65534 && info.st_mode & 0o7777 == 0o600)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs")
        }
        #expect(h.server.requests.isEmpty, "nothing was downloaded")
    }
}
