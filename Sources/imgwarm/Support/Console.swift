import ImgwarmKit
import ImgwarmSystem

/// Standard error for people, standard output for results (paths, JSON), so `imgwarm … | jq` works.
enum Console {
    /// True when standard error is a terminal (progress lines and colour-free live updates).
    static var stderrIsTerminal: Bool { FileDescriptor.standardError.isTerminal }

    /// Writes `imgwarm: message` to standard error.
    static func error(_ message: String) {
        writeError("imgwarm: " + message + "\n")
    }

    /// Writes `imgwarm: warning: message` to standard error.
    /// A count with its noun, in the plural but for one: "1 line", "2 lines".
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    /// `shard 2/3`, and where `--shard auto` read it: `shard 2/3 of the Slurm job array
    /// (SLURM_ARRAY_TASK_ID=4, ...)`.
    static func shardText(_ shard: Shard) -> String {
        guard let origin = shard.origin else { return "shard \(shard)" }
        return "shard \(shard) of the \(origin.description)"
    }

    /// A list's name in a message: its path, or "standard input" for `-`.
    static func listName(_ path: String) -> String { path == "-" ? "standard input" : path }

    static func warning(_ message: String) {
        writeError("imgwarm: warning: " + message + "\n")
    }

    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { writeAll(.standardError, UnsafeRawBufferPointer($0)) }
    }

    /// Writes `text` to standard output at once (results).
    static func output(_ text: String) {
        var text = text
        text.withUTF8 { writeAll(.standardOutput, UnsafeRawBufferPointer($0)) }
    }

    static func output(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeAll(.standardOutput, $0) }
    }

    /// Output is written unbuffered (see `output`), so there is nothing to flush; kept for
    /// symmetry at exit.
    static func flush() {}

    /// Writes every byte, retrying after interruptions. Standard output's reader going away
    /// (`| head -1`: EPIPE) ends the process quietly with exit code 0, as it asked for no more;
    /// on standard error the text is dropped and the command goes on (nobody is left to tell).
    static func writeAll(_ descriptor: FileDescriptor, _ buffer: UnsafeRawBufferPointer) {
        do {
            try descriptor.writeAll(buffer)
        } catch  where error.isBrokenPipe && descriptor == .standardOutput {
            CurrentProcess.exit(ExitStatus.success.rawValue)
        } catch {
            return
        }
    }
}
