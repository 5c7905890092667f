import Foundation

/// Paths of the repository's test fixtures and built products, for every test target.
public enum Fixtures {
    /// The repository root, found from this source file's location.
    public static let repositoryRoot: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }()

    /// `Tests/Fixtures`.
    public static var root: URL { repositoryRoot.appendingPathComponent("Tests/Fixtures") }

    /// A fixture file's bytes.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(relativePath))
    }

    /// The valid sample images: file name → bytes.
    public static func validImages() throws -> [String: Data] {
        let folder = root.appendingPathComponent("images/valid")
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            result[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return result
    }

    /// The folder holding the built products (`imgwarm`, the test bundle): the test runner's own.
    public static let productsFolder: URL = {
        if let override = ProcessInfo.processInfo.environment["IMGWARM_BUILD_DIR"] {
            return URL(fileURLWithPath: override)
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        // Inside an .xctest bundle folder, step out of it.
        while folder.path != "/" && folder.lastPathComponent.hasSuffix(".xctest") {
            folder = folder.deletingLastPathComponent()
        }
        return folder
    }()

    /// A built executable of this package, e.g. `imgwarm`.
    public static func product(_ name: String) -> URL {
        productsFolder.appendingPathComponent(name)
    }
}
