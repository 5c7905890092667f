import CImgwarmSys

#if canImport(Glibc)
    import Glibc
#endif

/// Process-wide settings and signals.
public enum ProcessTuning {
    /// Bodies up to 4 MiB live in memory (larger ones go to disk): keep them on the heap, and
    /// keep up to 16 MiB of freed heap rather than giving it back and faulting it in again for
    /// the next body (glibc's defaults cost ~25,000 page faults per 10,000 images).
    public static func keepHeapForBodies() {
        imgwarm_tune_malloc(4 << 20, 16 << 20)
    }

    /// Ignores SIGPIPE: a write to a pipe whose reader went away (`imgwarm path … | head -1`)
    /// fails with EPIPE, which the writer handles, instead of killing the process on the spot.
    public static func ignoreBrokenPipe() {
        imgwarm_ignore_sigpipe()
    }

    /// The width in columns of the terminal standard error is, nil when it is none. Asked anew
    /// each time: a window resized (SIGWINCH) is followed at the next call.
    public static func standardErrorColumns() -> Int? {
        let columns = Int(imgwarm_terminal_columns(FileDescriptor.standardError.rawValue))
        return columns > 0 ? columns : nil
    }

    /// Names the calling thread as `top` and `gdb` show it (15 characters are kept).
    public static func nameCurrentThread(_ name: String) {
        imgwarm_set_thread_name(String(name.prefix(15)))
    }
}

/// This process's environment and its end, for the command line.
public enum CurrentProcess {
    /// The process environment as a dictionary (the calling thread's `ProcessContext`'s, when it
    /// has one).
    public static var environment: [String: String] {
        if let context = ProcessContext.current { return context.environment }
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// Ends the process with `status` (`exit`: atexit handlers run, nothing is left unwritten
    /// since imgwarm writes its output unbuffered).
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }
}

/// The signals that end a run (SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGTERM), as a flag and
/// a pipe: the handler only records the signal and writes a byte, the only things a handler may
/// safely do, so a poll on the pipe wakes up at once.
public enum StopSignals {
    /// Installs the handlers: the first stop signal is recorded (and the pipe made readable); a
    /// second one ends the process at once with 128 + its number. A signal other than SIGTERM
    /// that was ignored on entry (SIGINT and SIGQUIT of a background job, SIGHUP under `nohup`)
    /// stays ignored. SIGQUIT's handler replaces the Swift runtime's backtracer (which prints
    /// "Program crashed" and lets the process go on). Returns the pipe's read end, nil when none
    /// could be made.
    public static func install() -> FileDescriptor? {
        // A command run in-process (`ProcessContext`) does not own the process's signals.
        guard ProcessContext.current == nil else { return nil }
        let descriptor = imgwarm_stop_install()
        return descriptor >= 0 ? FileDescriptor(rawValue: descriptor) : nil
    }

    /// The first stop signal received (SIGINT = 2, SIGTERM = 15, …), or 0.
    public static var received: Int32 { imgwarm_stop_signal() }

    /// Gives the stop signals back to their default action, for a command that does not stop
    /// gracefully (the executable handles them from its first instruction, `CImgwarmStart`): a
    /// stop signal already received ends the process now, killed by it as it would have been.
    public static func release() {
        guard ProcessContext.current == nil else { return }
        imgwarm_stop_release()
    }

    /// The name of a stop signal, for messages ("SIGHUP"); SIGINT for any other number.
    public static func name(of signal: Int32) -> String {
        switch signal {
        case SIGHUP: return "SIGHUP"
        case SIGQUIT: return "SIGQUIT"
        case SIGUSR1: return "SIGUSR1"
        case SIGUSR2: return "SIGUSR2"
        case SIGTERM: return "SIGTERM"
        default: return "SIGINT"
        }
    }

    /// Empties the pipe so a poll on it does not wake up again.
    public static func drain(_ pipe: FileDescriptor) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ Glibc.read(pipe.rawValue, $0.baseAddress, $0.count) }) > 0 {}
    }
}
