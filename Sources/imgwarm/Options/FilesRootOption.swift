import ArgumentParser
import ImgwarmKit
import ImgwarmSystem

/// `--files-root`: the folder a JSON Lines line's "file" may be in (prefetch).
struct FilesRootOption: ParsableArguments {
    @Option(
        name: .customLong("files-root"),
        help: ArgumentHelp(
            "The folder JSON Lines \"file\" paths must be in; relative paths resolve against it (default the list's folder; for - the current folder).",
            discussion:
                "A line {\"url\": ..., \"file\": PATH} stores the local file under the URL's key with no request. Without this option a path that leaves the list's folder (.., an absolute path, a symbolic link pointing out) is refused; only regular files are read.",
            valueName: "folder"),
        completion: .directory)
    var filesRoot: String?

    /// A root that is not a folder is a usage error, before any line is read.
    func validate() throws {
        guard let filesRoot else { return }
        // A relative root is named with where it was looked for (the current folder's).
        let named =
            filesRoot.hasPrefix("/") ? filesRoot : "\(filesRoot) (looked for at \(LocalFileRules.fullPath(filesRoot)))"
        do {
            guard try FileSystem.status(ofPath: filesRoot).kind == .directory else {
                throw ValidationError("--files-root \(named) is not a folder")
            }
        } catch let error as SystemError {
            throw ValidationError("--files-root \(named): \(error.message)")
        }
    }

    /// The rules the engine applies to "file" paths.
    var rules: LocalFileRules { LocalFileRules(root: filesRoot) }
}
