import Foundation
import LoopbackServer

// imgwarm-testserver: the tests' loopback HTTP server as a program, for scripts/demo.sh and
// manual experiments. It serves a folder (`--root DIR`) or the test fixtures' routes
// (`--fixtures DIR`, the Tests/Fixtures/images folder), on 127.0.0.1 only, until SIGTERM/SIGINT.
//
//   imgwarm-testserver --root sample-images --port-file /tmp/port
//   imgwarm-testserver --fixtures Tests/Fixtures/images --port 8080

let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ flag: String, in arguments: [String] = arguments) -> String? {
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let usage = "usage: imgwarm-testserver (--root DIR | --fixtures DIR) [--port N] [--port-file FILE]\n"

let router: @Sendable (Request) -> LoopbackServer.Handler?
if let root = value("--root") {
    router = DirectoryRoutes.router(root: URL(fileURLWithPath: root))
} else if let fixtures = value("--fixtures") {
    router = try FixtureRoutes(imagesFolder: URL(fileURLWithPath: fixtures)).router
} else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
let server = LoopbackServer(router: router)
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
