#if canImport(Glibc)
    import Glibc
#endif

/// What a command takes from the process it runs in: its standard streams, its environment, its
/// stop signals and the words its messages use for settings. The executable runs every command in the process's own context (descriptors
/// 0, 1 and 2, `environ`, the signal handlers); the tests run commands in-process, each in a
/// context of its own (pipes, an environment of the test's making, no signal handlers), so that
/// only the tests of the command-line surface pay for starting the binary.
///
/// The context belongs to the calling thread and to every thread it starts through
/// `startThread` (the engine starts no thread any other way), so one command's downloads,
/// validators and state writer read the streams and environment of the command that started
/// them, while another test's command runs beside it.
public struct ProcessContext: Sendable {
    public var input: FileDescriptor
    public var output: FileDescriptor
    public var error: FileDescriptor
    public var environment: [String: String]
    /// How the program hosting the engine names a setting in messages, by the setting's
    /// configuration name (`Setting.useNames` for the process's own context): the CLI's flags.
    public var settingNames: (@Sendable (String) -> String)?

    public init(
        input: FileDescriptor, output: FileDescriptor, error: FileDescriptor, environment: [String: String],
        settingNames: (@Sendable (String) -> String)? = nil
    ) {
        self.input = input
        self.output = output
        self.error = error
        self.environment = environment
        self.settingNames = settingNames
    }

    /// The context set for the calling thread, nil when it runs in the process's own.
    public static var current: ProcessContext? { Holder.current?.context }

    /// Runs `body` with `context` as the calling thread's context (and its threads'), then puts
    /// the previous one back.
    public static func run<T>(in context: ProcessContext, _ body: () throws -> T) rethrows -> T {
        let previous = Holder.current
        Holder.set(Holder(context))
        defer { Holder.set(previous) }
        return try body()
    }

    /// The calling thread's holder, handed to a thread it starts (`startThread`).
    static func inherited() -> Holder? { Holder.current }

    /// A context as a reference, so a thread-specific slot can hold it.
    final class Holder: @unchecked Sendable {
        let context: ProcessContext
        init(_ context: ProcessContext) { self.context = context }

        /// One slot per thread; the destructor releases what a thread still held when it ended.
        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            let result = pthread_key_create(&key) { pointer in
                if let pointer { Unmanaged<Holder>.fromOpaque(pointer).release() }
            }
            precondition(result == 0, "cannot create a thread-specific key: \(SystemError.message(result))")
            return key
        }()

        static var current: Holder? {
            guard let pointer = pthread_getspecific(key) else { return nil }
            return Unmanaged<Holder>.fromOpaque(pointer).takeUnretainedValue()
        }

        static func set(_ holder: Holder?) {
            if let old = pthread_getspecific(key) { Unmanaged<Holder>.fromOpaque(old).release() }
            pthread_setspecific(key, holder.map { Unmanaged.passRetained($0).toOpaque() })
        }
    }
}
