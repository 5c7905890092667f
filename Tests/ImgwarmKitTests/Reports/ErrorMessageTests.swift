import Foundation
import TestSupport
import Testing

@testable import ImgwarmKit

/// Run-level errors keep their sentence for people and name the system call that failed
/// (issue 22: "errors name the failed call").
@Suite struct ErrorMessageTests {
    @Test func aReportThatCannotBeCreatedNamesTheCall() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("missing/report.json")
        do {
            _ = try ReportFile(path: path)
            Issue.record("a report in a missing folder was opened")
        } catch {
            #expect(error.description.hasPrefix("cannot write the report to \(path): open(\(path).tmp-"))
            #expect(error.description.hasSuffix(") failed: No such file or directory"), "\(error)")
        }
    }

    @Test func aListThatCannotBeReadNamesTheCall() throws {
        let temp = try TemporaryFolder()
        let path = temp.path("missing.txt")
        do {
            _ = try ListIngest.open([ListSource(path: path)])
            Issue.record("a missing list was opened")
        } catch {
            #expect(error.description == "cannot read \(path): open(\(path)) failed: No such file or directory")
        }
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
