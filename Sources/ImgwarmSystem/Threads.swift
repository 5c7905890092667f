#if canImport(Glibc)
    import Glibc
#endif

/// A mutex with a condition variable (pthread), for the few places threads wait for each other.
///
/// The engine uses plain threads and these instead of Foundation, which would pull ICU and some
/// 20 MB of resident memory into a tool whose memory budget is 40 MB.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        // Timed waits count on the monotonic clock: a change of the wall clock does not move them.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits for a signal; call with the lock held.
    public func wait() { pthread_cond_wait(condition, mutex) }
    /// Waits for a signal until `deadline` (seconds on `Monotonic.now()`'s clock); call with the
    /// lock held.
    public func wait(until deadline: Double) {
        let seconds = deadline.rounded(.down)
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((deadline - seconds) * 1e9))
        pthread_cond_timedwait(condition, mutex, &time)
    }
    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// Starts a detached thread running `body`, named `name` (as `top` and `gdb` show it), in the
/// calling thread's `ProcessContext`.
public func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        let name: String
        let context: ProcessContext.Holder?
        init(_ body: @escaping @Sendable () -> Void, _ name: String, _ context: ProcessContext.Holder?) {
            self.body = body
            self.name = name
            self.context = context
        }
    }
    let box = Unmanaged.passRetained(Box(body, name, ProcessContext.inherited())).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    pthread_attr_setstacksize(&attributes, 1 << 20)
    var thread = pthread_t()
    let result = pthread_create(
        &thread, &attributes,
        { pointer in
            let box = Unmanaged<Box>.fromOpaque(pointer!).takeRetainedValue()
            ProcessTuning.nameCurrentThread(box.name)
            if let context = box.context {
                ProcessContext.run(in: context.context, box.body)
            } else {
                box.body()
            }
            return nil
        }, box)
    pthread_attr_destroy(&attributes)
    precondition(result == 0, "cannot start a thread: \(SystemError.message(result))")
}

/// Online processor count.
public var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

/// An environment variable (of the calling thread's `ProcessContext`), or nil when unset or empty.
public func environmentValue(_ name: String) -> String? {
    if let context = ProcessContext.current {
        guard let text = context.environment[name], !text.isEmpty else { return nil }
        return text
    }
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
}

/// A value computed on a thread of its own (`startThread`), which `wait` blocks for.
public final class Background<Value: Sendable>: @unchecked Sendable {
    private let done = Condition()
    /// Guarded by `done`.
    private var value: Value?

    /// Starts `body` on a new thread named `name`.
    public init(name: String, _ body: @escaping @Sendable () -> Value) {
        startThread(name: name) { [self] in
            let computed = body()
            done.withLock {
                value = computed
                done.broadcast()
            }
        }
    }

    /// Waits for `body` to end; its value.
    public func wait() -> Value {
        done.lock()
        defer { done.unlock() }
        while true {
            if let value { return value }
            done.wait()
        }
    }
}
