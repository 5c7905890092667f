import Curl
import Testing

@testable import ImgwarmKit
@testable import imgwarm

/// `ExitStatus.of`, the one table from the engine's typed run-level errors to exit codes, and the
/// words `CommandFailure` takes from them.
@Suite struct RunFailureTableTests {
    @Test func aListThatCannotBeReadIsAUsageError() {
        let failure = CommandFailure(PrefetchJob.Error.unreadableInput(path: "/lists/missing.txt", code: 2))
        #expect(failure.status == .usage)
        #expect(failure.message.hasPrefix("cannot read /lists/missing.txt: "), "\(failure.message)")
        let stdin = CommandFailure(PrefetchJob.Error.unreadableInput(path: "-", code: 5))
        #expect(stdin.message.hasPrefix("cannot read standard input: "), "\(stdin.message)")
    }

    @Test func theCacheTheStateOrLibcurlUnusableIsExitCode3() {
        let errors: [(PrefetchJob.Error, String)] = [
            (.cacheFolder(.notADirectory("/c")), "/c is not a folder"),
            (.spoolFolder("/tmp", code: 28), "cannot create a temporary file in /tmp: "),
            (
                .state(.unusable("/s.sqlite", "disk I/O error")),
                "cannot use the state database /s.sqlite: disk I/O error"
            ),
            (.curl(CurlError(code: 2, message: "failed to initialize")), "cannot start libcurl: failed to initialize"),
        ]
        for (error, words) in errors {
            let failure = CommandFailure(error)
            #expect(failure.status == .cacheUnusable, "\(error)")
            #expect(failure.message.hasPrefix(words), "\(failure.message)")
        }
    }

    @Test func aCleanItRefusesIsAUsageErrorTheRestIsExitCode3() {
        #expect(ExitStatus.ofClean(.noBirthTime("/c")) == .usage)
        #expect(ExitStatus.ofClean(.protectedFolder("/", what: "the root folder")) == .usage)
        #expect(ExitStatus.ofClean(.foreignFolder("/c", names: ["notes.txt"], count: 1)) == .usage)
        #expect(ExitStatus.ofClean(.notADirectory("/c")) == .cacheUnusable)
        #expect(ExitStatus.ofClean(.unreadable("/c", SystemError(code: 13))) == .cacheUnusable)
        let timeout = CacheLock.Timeout(path: "/c/lock", seconds: 1, exclusive: true)
        #expect(ExitStatus.ofClean(.locked(timeout)) == .cacheUnusable)
        #expect(DiskCacheError.locked(timeout).description == timeout.description)
    }

    @Test func everyHaltIsExitCode3() {
        #expect(ExitStatus.of(PrefetchJob.Halt.diskFull) == .cacheUnusable)
        #expect(CommandFailure(halt: .diskFull).message == "the disk is full")
        let state = StateError.locked("/s.sqlite", "database is locked")
        #expect(CommandFailure(halt: .stateFailure(state)).status == .cacheUnusable)
        #expect(CommandFailure(halt: .stateFailure(state)).message == state.description)
    }
}
