import Foundation
import LoopbackServer

// imgwarm-testserver: the tests' loopback HTTP server as a program, for scripts/demo.sh and
// manual experiments. It serves a folder (`--root DIR`) or the test fixtures' routes
// (`--fixtures DIR`, the Tests/Fixtures/images folder), on 127.0.0.1 only, until SIGTERM/SIGINT.
//
//   imgwarm-testserver --root sample-images --port-file /tmp/port
//   imgwarm-testserver --fixtures Tests/Fixtures/images --port 8080
//
// --capacity K [--service-time SECONDS] makes it a small origin (scripts/bench.sh): K requests
// served at a time, each held SECONDS (default 0.05) before its answer, the rest queued. Then
// GET /_capacity/stats answers {"peakHeld": …, "peakConnections": …, "served": …} (the most
// requests held at once, queued and served, and the most connections open at once, since the
// start or the last GET /_capacity/reset), outside the limit.
//
// --request-log FILE appends one line per request received, "METHOD TARGET" (the path and query
// as sent), as it arrives: scripts/test-slurm.sh counts the requests of each URL with it.

let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ flag: String, in arguments: [String] = arguments) -> String? {
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let usage =
    "usage: imgwarm-testserver (--root DIR | --fixtures DIR) [--port N] [--port-file FILE] [--capacity K [--service-time S]] [--request-log FILE]\n"

var router: @Sendable (Request) -> LoopbackServer.Handler?
if let root = value("--root") {
    router = DirectoryRoutes.router(root: URL(fileURLWithPath: root))
} else if let fixtures = value("--fixtures") {
    router = try FixtureRoutes(imagesFolder: URL(fileURLWithPath: fixtures)).router
} else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
/// Set once --capacity's server exists (the stats route reads its connection counts).
final class ServerBox: @unchecked Sendable { var server: LoopbackServer? }
let box = ServerBox()
if let capacity = value("--capacity").flatMap(Int.init) {
    let limit = CapacityLimit(capacity: capacity, serviceTime: Double(value("--service-time") ?? "0.05") ?? 0.05)
    let limited = limit.limiting(router)
    router = { request in
        switch request.path {
        case "/_capacity/stats":
            return { _, responder in
                let connections = box.server?.peakConnections ?? 0
                let json =
                    #"{"peakHeld": \#(limit.peakHeld), "peakConnections": \#(connections), "served": \#(limit.served)}"#
                responder.respond(status: 200, headers: ["Content-Type": "application/json"], body: Array(json.utf8))
            }
        case "/_capacity/reset":
            return { _, responder in
                limit.resetPeak()
                box.server?.resetPeakConnections()
                responder.respond(status: 200, headers: ["Content-Type": "text/plain"], body: Array("reset\n".utf8))
            }
        default:
            return limited(request)
        }
    }
}
if let requestLog = value("--request-log") {
    let fd = open(requestLog, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
        FileHandle.standardError.write(Data("imgwarm-testserver: cannot open \(requestLog)\n".utf8))
        exit(2)
    }
    let logged = router
    router = { request in
        // One write(2) a line on an O_APPEND descriptor: lines from concurrent connections never mix.
        let target = request.target.replacingOccurrences(of: "\n", with: "%0A")
        let line = Array("\(request.method) \(target)\n".utf8)
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return logged(request)
    }
}
let server = LoopbackServer(router: router)
box.server = server
let port = try server.start(port: UInt16(value("--port") ?? "0") ?? 0)
if let portFile = value("--port-file") {
    try "\(port)\n".write(toFile: portFile + ".tmp", atomically: false, encoding: .utf8)
    rename(portFile + ".tmp", portFile)
}
FileHandle.standardError.write(Data("imgwarm-testserver: serving on http://127.0.0.1:\(port)\n".utf8))

signal(SIGTERM, SIG_IGN)
signal(SIGINT, SIG_IGN)
let signals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
    let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
    source.setEventHandler {
        server.stop()
        exit(0)
    }
    source.resume()
    return source
}
withExtendedLifetime(signals) { dispatchMain() }
