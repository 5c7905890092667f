import Foundation
import TestSupport

/// Runs the built `imgwarm` binary the way a user does.
enum CLI {
    static let binary = Fixtures.product("imgwarm")

    /// A clean environment: no inherited cache variables, HOME in a temporary folder.
    static func environment(home: String, extra: [String: String] = [:]) -> [String: String] {
        var env = ["PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8"]
        for (key, value) in extra { env[key] = value }
        return env
    }

    static func run(
        _ arguments: [String], stdin: Data? = nil, home: String, env: [String: String] = [:], timeout: Double = 120
    ) throws -> ProcessResult {
        try ProcessRunner.run(
            binary, arguments, stdin: stdin, environment: environment(home: home, extra: env), timeout: timeout)
    }

    /// Parses standard output as one JSON object.
    static func json(_ result: ProcessResult) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        return object
    }
}
