import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// Run-level errors keep their sentence for people and name the system call that failed
/// (issue 22: "errors name the failed call").
@Suite struct ErrorMessageTests {
    @Test func aReportThatCannotBeCreatedNamesTheCall() throws {
        let temp = try TemporaryFolder()
        // A missing folder is made as mkdir -p would; one below a regular file cannot be.
        let file = try temp.write("plain", Data([1]))
        let path = file + "/missing/report.json"
        do {
            _ = try ReportFile(path: path)
            Issue.record("a report below a regular file was opened")
        } catch {
            #expect(
                error.description == "cannot write the report to \(path): stat(\(path)) failed: Not a directory",
                "\(error)")
        }
    }

    /// A file the clean cannot delete is a failure that names the call; one changed since the
    /// scan is neither removed nor a failure.
    @Test func aFileThatCannotBeDeletedNamesTheCall() throws {
        let temp = try TemporaryFolder()
        let location = CacheLocation(folder: temp.path("cache"))
        try FileManager.default.createDirectory(atPath: location.folder, withIntermediateDirectories: true)
        for name in ["a.png", "b.png"] {
            try Data(repeating: 0x41, count: 10).write(to: URL(fileURLWithPath: location.folder + "/" + name))
        }
        let cache = DiskCache(location: location)
        var policy = DiskCache.CleanPolicy()
        policy.removeAll = true
        let now = Timestamp.now()
        let survey = try cache.survey(policy: policy, now: now)
        let directory = try cache.openFolder()
        defer { directory.close() }
        var failures: [DiskCache.RemovalFailure] = []
        let result = try cache.clean(
            survey, in: directory, policy: policy, now: now,
            remove: { entry throws(DiskCache.RemovalError) in
                if entry.name == "a.png" {
                    throw .system(SystemError(code: EACCES, call: "unlinkat", path: entry.name))
                }
                throw .changedSinceScan
            },
            observe: { event in
                if case .failed(let failure) = event { failures.append(failure) }
            })
        #expect(result.failed == 1 && result.cleared == 0)
        #expect(failures.map(\.entry.name) == ["a.png"] && failures.first?.call == "unlinkat")
        #expect(failures.first?.message == "Permission denied")
    }

    @Test func cacheErrorsNameTheCall() {
        #expect(
            CacheStoreError.unusable("/c", SystemError(code: ENOTDIR, call: "mkdir", path: "/c")).description
                == "cannot use /c: mkdir(/c) failed: Not a directory")
        #expect(
            StoreFailure(SystemError(code: ENOSPC, call: "write"), step: "write").description
                == "cannot write: write() failed: No space left on device")
        #expect(
            DiskCacheError.unreadable("/c", SystemError(code: EACCES, call: "openat", path: "c")).description
                == "cannot read /c: openat(c) failed: Permission denied")
    }
}
