import Foundation

/// A server that serves `capacity` requests at a time, each for a fixed `serviceTime`, the rest
/// queueing on their connections until a slot frees, first come first served: a small origin
/// (issue 26). It counts the requests it holds at once, queued and served — the connections a
/// client keeps busy with it — and the most it held; `resetPeak()` starts the count of the
/// most again (to leave out a warm-up).
public final class CapacityLimit: @unchecked Sendable {
    public let capacity: Int
    public let serviceTime: Double
    private let condition = NSCondition()
    private var serving = 0
    private var held = 0
    private var peak = 0
    private var nextTicket = 0
    private var nextToServe = 0
    private var done = 0

    public init(capacity: Int, serviceTime: Double) {
        self.capacity = max(1, capacity)
        self.serviceTime = serviceTime
    }

    /// The most requests held at once since the start or the last `resetPeak()`.
    public var peakHeld: Int { condition.withLock { peak } }
    /// Requests served to the end.
    public var served: Int { condition.withLock { done } }

    public func resetPeak() { condition.withLock { peak = held } }

    /// Serves `request` as `respond` says, once a slot is free and after `serviceTime`.
    public func serve(_ responder: Responder, _ respond: () -> Void) {
        condition.lock()
        held += 1
        peak = max(peak, held)
        let ticket = nextTicket
        nextTicket += 1
        while serving >= capacity || ticket != nextToServe {
            // Wakes now and then to notice a stopped server.
            _ = condition.wait(until: Date().addingTimeInterval(0.05))
            if responder.server?.isStopped ?? true {
                held -= 1
                nextToServe = max(nextToServe, ticket + 1)
                condition.broadcast()
                condition.unlock()
                return
            }
        }
        nextToServe += 1
        serving += 1
        condition.broadcast()
        condition.unlock()
        let finished = responder.pause(serviceTime)
        if finished { respond() }
        condition.lock()
        serving -= 1
        held -= 1
        done += 1
        condition.broadcast()
        condition.unlock()
    }

    /// A router whose every request goes through this limit to `router`'s handler (404s too).
    public func limiting(_ router: @escaping @Sendable (Request) -> LoopbackServer.Handler?)
        -> @Sendable (Request) -> LoopbackServer.Handler?
    {
        { request in
            let handler = router(request)
            return { request, responder in
                self.serve(responder) {
                    if let handler {
                        handler(request, responder)
                    } else {
                        responder.respond(
                            status: 404, headers: ["Content-Type": "text/plain"], body: Array("not found\n".utf8))
                    }
                }
            }
        }
    }
}
