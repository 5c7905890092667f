import Foundation

/// A fresh folder under the system's temporary folder, deleted with everything in it by `remove`.
public final class TemporaryFolder: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(prefix: String = "imgwarm-test") throws {
        let base = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        var template = Array((base + "\(prefix)-XXXXXX").utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        url = URL(fileURLWithPath: String(cString: created)).standardizedFileURL
    }

    /// A path inside this folder.
    public func path(_ relative: String) -> String { url.appendingPathComponent(relative).path }

    /// Writes `contents` to `relative`, creating intermediate folders.
    @discardableResult
    public func write(_ relative: String, _ contents: Data) throws -> String {
        let target = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: target)
        return target.path
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    deinit { remove() }
}
