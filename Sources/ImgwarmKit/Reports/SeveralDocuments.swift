/// The document of a command run on several formats' folders (`--cache-format a,b`), streamed
/// into one `ReportFile`: `{"schemaVersion", "tool", "command", "caches": [...]}`, each of `caches`
/// the document the command writes for one folder (written `embedded`: no line feed, no commit),
/// in the order given. `JSONWriter.severalCaches` builds the same from whole documents.
public final class SeveralDocuments {
    private let file: ReportFile
    private var documents = 0

    /// Writes the header of the document of `command`, whose documents have `schemaVersion`.
    public init(file: ReportFile, schemaVersion: Int, command: String) {
        self.file = file
        var writer = JSONWriter(pretty: false, capacity: 256)
        writer.beginObject()
        writer.reportHeader(schemaVersion: schemaVersion, command: command, cacheFolder: nil)
        writer.key("caches")
        file.write(writer.take() + Array("[".utf8))
    }

    /// The file the next format's document is written into (embedded).
    public func next() -> ReportFile {
        if documents > 0 { file.write(Array(",".utf8)) }
        documents += 1
        return file
    }

    /// Closes the list and the document; the file appears complete only now.
    public func finish() throws(ReportFile.OpenError) {
        file.write(Array("]}\n".utf8))
        try file.commit()
    }
}

extension ReportFile {
    /// Writes a document's last bytes: alone in the file, with a line feed (when `lineFeed`: a
    /// clean report has always ended without one), and commits it; `embedded` in a
    /// `SeveralDocuments`, as they are (that document commits the file).
    func finishDocument(_ bytes: [UInt8], embedded: Bool, lineFeed: Bool = true) throws(OpenError) {
        guard !embedded else { return write(bytes) }
        write(lineFeed ? bytes + [UInt8(ascii: "\n")] : bytes)
        try commit()
    }
}
