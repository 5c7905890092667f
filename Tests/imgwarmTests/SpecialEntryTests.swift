import Foundation
import ImgwarmKit
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A FIFO or a device node standing at an entry's name (a cache folder is untrusted input,
/// docs/hardening.md) is never opened by `prefetch`'s hit check, `verify` or `stats`: as root,
/// opening a device node runs its driver, and opening a FIFO may block (issue 50). inotify
/// (`IN_OPEN`) sees every opening of the special file while the commands run.
@Suite struct SpecialEntryTests {
    /// Counts the openings of one file (inotify `IN_OPEN`).
    final class OpenWatch {
        let descriptor: Int32
        init(_ path: String) throws {
            descriptor = inotify_init1(Int32(IN_NONBLOCK))
            #expect(descriptor >= 0)
            #expect(inotify_add_watch(descriptor, path, UInt32(IN_OPEN)) >= 0, "\(path)")
        }
        deinit { close(descriptor) }

        /// The openings seen since the last call.
        var openings: Int {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var count = 0
            while true {
                let read = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if read <= 0 { return count }
                var offset = 0
                while offset < read {
                    // struct inotify_event: wd, mask, cookie, len, then len bytes of name. The
                    // watch's removal (IN_IGNORED, when a download replaced the file) is no opening.
                    let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                    if mask & UInt32(IN_OPEN) != 0 { count += 1 }
                    let length = buffer.withUnsafeBytes {
                        $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)
                    }
                    offset += 16 + Int(length)
                }
            }
        }
    }

    @Test(arguments: ["fifo", "device"])
    func aSpecialFileAtAnEntrysNameIsNeverOpened(kind: String) throws {
        let h = try PrefetchHarness()
        let url = h.url("/img/photo.jpg")
        let other = h.url("/img/gradient.png")
        #expect(try h.prefetch([other]).status == 0)
        let path = try CLI.run(["path", "--disk-cache-path", h.folder, url], home: h.temp.path).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix(h.folder + "/"), "\(path)")
        if kind == "fifo" {
            #expect(mkfifo(path, 0o644) == 0)
        } else if mknod(path, S_IFCHR | 0o644, dev_t(1 << 8 | 3)) != 0 {
            return  // not root: no device node can be made here
        }
        let watch = try OpenWatch(path)
        let list = try h.temp.write("list.txt", Data("\(url)\n\(other)\n".utf8))
        let verify = try CLI.run(["verify", "--disk-cache-path", h.folder, "--verbose", list], home: h.temp.path)
        #expect(verify.status == 1, "\(kind): \(verify.stderrText)")
        let stats = try CLI.run(["stats", "--disk-cache-path", h.folder], home: h.temp.path)
        #expect(stats.status == 0, "\(kind): \(stats.stderrText)")
        let dry = try CLI.run(
            ["prefetch", "--disk-cache-path", h.folder, "--dry-run", "--report", "-", list], home: h.temp.path)
        #expect(dry.status == 0, "\(kind): \(dry.stderrText)")
        #expect(watch.openings == 0, "\(kind): verify, stats or the dry run opened it")
        let run = try h.prefetch([url, other])
        #expect(run.status == 0, "\(kind): \(run.stderr)")
        #expect(watch.openings == 0, "\(kind): prefetch opened it")
        #expect(try run.entry(line: 1)["outcome"] as? String == "downloaded")
        #expect(try run.entry(line: 2)["outcome"] as? String == "cached")
        let stored = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
        #expect(stored == .typeRegular, "the download replaced it")
    }
}
