import Foundation
import LoopbackServer

/// The loopback server with the fixture routes (`Tests/Fixtures/images`), listening on a free port
/// of 127.0.0.1 from `init`, stopped when it goes away: the set-up the harnesses that run against
/// the server share (`DownloaderTests.Bench`, `PrefetchJobTests.Bench`, `PrefetchHarness`).
public final class FixtureServer: @unchecked Sendable {
    public let routes: FixtureRoutes
    public let server: LoopbackServer

    public init() throws {
        routes = try FixtureRoutes(imagesFolder: Fixtures.root.appendingPathComponent("images"))
        server = LoopbackServer(router: routes.router)
        try server.start()
    }

    deinit { server.stop() }

    /// `path` (with its leading slash) on the server.
    public func url(_ path: String) -> String { server.baseURL + path }
}
