import Foundation
import ImgwarmSystem
import TestSupport
import Testing

/// A command run in-process reads the streams and environment of its `ProcessContext`, on its
/// own thread and on every thread it starts, and hands that environment to the programs it
/// starts; outside a context everything is the process's own.
@Suite struct ProcessContextTests {
    func context(_ temp: TemporaryFolder, environment: [String: String]) throws -> (ProcessContext, FileDescriptor) {
        let folder = try FileDescriptor.openFolder(temp.path)
        defer { folder.close() }
        let output = try folder.createFile("out")
        let context = ProcessContext(
            input: output, output: output, error: output, environment: environment)
        return (context, output)
    }

    @Test func theContextHoldsOnItsThreadAndTheThreadsItStarts() throws {
        let temp = try TemporaryFolder()
        let (context, output) = try context(temp, environment: ["IMGWARM_CONTEXT_TEST": "inside"])
        defer { output.close() }
        let outside = FileDescriptor.standardOutput
        #expect(ProcessContext.current == nil)

        let seen = ProcessContext.run(in: context) {
            let here = (FileDescriptor.standardOutput, environmentValue("IMGWARM_CONTEXT_TEST"))
            let started = Background(name: "context-test") {
                (FileDescriptor.standardOutput, environmentValue("IMGWARM_CONTEXT_TEST"))
            }.wait()
            return (here, started, CurrentProcess.environment)
        }
        #expect(seen.0.0 == output && seen.0.1 == "inside")
        #expect(seen.1.0 == output && seen.1.1 == "inside", "a thread started in the context inherits it")
        #expect(seen.2 == ["IMGWARM_CONTEXT_TEST": "inside"])

        // Afterwards, and on a thread started outside, the process's own.
        #expect(ProcessContext.current == nil)
        #expect(FileDescriptor.standardOutput == outside)
        #expect(environmentValue("IMGWARM_CONTEXT_TEST") == nil)
        let later = Background(name: "context-test") { ProcessContext.current == nil }.wait()
        #expect(later)
    }

    @Test func anInnerContextGivesTheOuterOneBack() throws {
        let temp = try TemporaryFolder()
        let (outer, output) = try context(temp, environment: ["LEVEL": "outer"])
        defer { output.close() }
        let levels = ProcessContext.run(in: outer) {
            var inner = outer
            inner.environment = ["LEVEL": "inner"]
            let nested = ProcessContext.run(in: inner) { environmentValue("LEVEL") }
            return [nested, environmentValue("LEVEL")]
        }
        #expect(levels == ["inner", "outer"])
    }

    /// A program started in a context gets the context's environment, not the process's.
    @Test func aChildGetsTheContextsEnvironment() throws {
        let temp = try TemporaryFolder()
        let (context, output) = try context(temp, environment: ["ONLY": "this"])
        let status = try ProcessContext.run(in: context) {
            let child = try ChildProcess.spawn("/usr/bin/env", [], input: nil, output: output, errors: output)
            return try child.wait()
        }
        output.close()
        #expect(status == 0)
        #expect(try String(contentsOfFile: temp.path("out"), encoding: .utf8) == "ONLY=this\n")
    }
}
