import ImgwarmSystem

/// Reads every list before the first download: valid URLs go to the priority spools, invalid
/// lines and duplicates are reported at once. Reading everything first is what lets a
/// high-priority line at the end of a list start first, and gives progress its total.
struct ListIngest {
    /// Why a list could not be read: a usage error, before any download.
    struct ReadError: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "cannot read \(path == "-" ? "standard input" : path): \(SystemError.message(code))" }
    }

    /// Why reading a list ended with an error: the list could not be read, or the line callback
    /// threw.
    enum ReadFailure<LineError: Error>: Error {
        case read(ReadError)
        case line(LineError)
    }

    /// Opens every list first, so a missing file stops the run before anything happens, and
    /// tells each one's format (`OpenedList`: a HAR by its content under `auto`).
    static func open(_ sources: [ListSource], stop: FileDescriptor? = nil) throws(ReadError) -> [OpenedList] {
        var opened: [OpenedList] = []
        for source in sources {
            var descriptor = FileDescriptor.standardInput
            do throws(SystemError) {
                if source.path != "-" {
                    descriptor = try FileDescriptor.openForReading(source.path)
                    if (try? descriptor.status())?.kind == .directory { throw SystemError.isADirectory }
                }
                opened.append(try OpenedList.tell(source, descriptor, stop: stop))
            } catch {
                if descriptor != .standardInput { descriptor.close() }
                for list in opened where list.descriptor != .standardInput { list.descriptor.close() }
                throw ReadError(path: source.path, code: error.code)
            }
        }
        return opened
    }

    /// Reads one list, calling `onLine` with each line that is not ignored until it returns false
    /// (the run was interrupted) or throws, or `stop` becomes readable (a signal: a list on a
    /// pipe whose writer stalls is not waited for). Returns nil when the list was read to its
    /// end, else the number of its lines read (blank and comment lines included).
    @discardableResult
    static func read<LineError: Error>(
        _ list: OpenedList, index: Int, stop: FileDescriptor? = nil,
        notImages: (Int) -> Void = { _ in }, replayCredentials: Bool = false,
        variantHeaders: ([String]) -> Void = { _ in }, bodies: HARBodies? = nil,
        recordedBody: (BodySource) -> Void = { _ in },
        onLine: (_ line: Int, _ parsed: ListLine) throws(LineError) -> Bool
    ) throws(ReadFailure<LineError>) -> Int? {
        let (source, descriptor) = (list.source, list.descriptor)
        let format = source.effectiveFormat
        if format == .har {
            return try readHAR(
                list, stop: stop, notImages: notImages,
                replayCredentials: replayCredentials, variantHeaders: variantHeaders, kept: bodies,
                recordedBody: recordedBody, onLine: onLine)
        }
        var reader = LineReader(
            descriptor: descriptor, maxLineLength: URLRules.maxLineLength, stop: stop, head: list.head)
        var lineNumber = 0
        var failure: LineError?
        var stopped = false
        reader.forEachLine { bytes, truncated in
            guard failure == nil, !stopped else { return }
            lineNumber += 1
            var line = bytes
            // A UTF-8 byte order mark at the start of the file is not part of the first line.
            if lineNumber == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
            let parsed = ListLine.parse(line, format: format, truncated: truncated)
            if parsed == .ignored { return }
            do throws(LineError) { stopped = try !onLine(lineNumber, parsed) } catch { failure = error }
        }
        if descriptor != .standardInput { descriptor.close() }
        if let failure { throw .line(failure) }
        if stopped { return lineNumber - 1 }
        if reader.stopped { return lineNumber }
        if let error = reader.readError { throw .read(ReadError(path: source.path, code: error.code)) }
        return nil
    }

    /// Why a HAR entry recorded as an SVG is `unsupported` (`mimeType` as recorded).
    static func svgReason(_ mimeType: String) -> String {
        let printable =
            !mimeType.isEmpty && mimeType.utf8.count <= 64 && mimeType.utf8.allSatisfy { (0x20..<0x7F).contains($0) }
        let recorded = printable ? " (recorded as \(mimeType))" : ""
        return "an SVG image\(recorded): image libraries decode SVG only with a plugin (SDWebImageSVGCoder, "
            + "coil-svg); \(Setting.acceptSVG) stores it for an app that has one"
    }

    /// `read` for a HAR capture: each image entry is a line numbered by its entry (`HARList`),
    /// its recorded variant headers told just before it (`variantHeaders`), each unusable entry
    /// an invalid line; entries that are not images are not lines (`notImages` counts them).
    /// With `kept` (`--offline`: the run's scratch file of bodies) each image's recorded body is
    /// kept there and told just before its line (`recordedBody`).
    private static func readHAR<LineError: Error>(
        _ list: OpenedList, stop: FileDescriptor?, notImages: (Int) -> Void,
        replayCredentials: Bool, variantHeaders: ([String]) -> Void, kept: HARBodies?,
        recordedBody: (BodySource) -> Void,
        onLine: (_ line: Int, _ parsed: ListLine) throws(LineError) -> Bool
    ) throws(ReadFailure<LineError>) -> Int? {
        let (source, descriptor) = (list.source, list.descriptor)
        defer { if descriptor != .standardInput { descriptor.close() } }
        let bodies: HARBodies
        if let kept {
            bodies = kept
        } else {
            do {
                bodies = try HARBodies(folder: nil)
            } catch {
                throw .read(ReadError(path: source.path, code: error.code))
            }
        }
        var failure: LineError?
        let result = HARList.read(descriptor, head: list.head, bodies: bodies, stop: stop) { line in
            guard failure == nil else { return false }
            let number: Int
            let parsed: ListLine
            switch line {
            case .image(let first, let url, let entry):
                number = first
                variantHeaders(entry.headersToSend(credentials: replayCredentials))
                if kept != nil { recordedBody(entry.recordedBody()) }
                switch URLRules.validate(url) {
                case .success where entry.svg:
                    parsed = .unsupported(url: url, reason: ListIngest.svgReason(entry.mimeType))
                case .success: parsed = .url(url: url, key: nil, priority: nil)
                case .failure(let error):
                    parsed = .invalid(
                        reason: "request.url " + error.message, text: ListLine.display(ArraySlice(url.utf8)))
                }
            case .invalid(let entry, let reason):
                number = entry
                parsed = .invalid(reason: reason, text: "entry \(entry)")
            }
            do throws(LineError) { return try onLine(number, parsed) } catch {
                failure = error
                return false
            }
        }
        if let failure { throw .line(failure) }
        notImages(result.counts.skipped)
        if result.stopped { return result.counts.entries }
        if let error = result.readError { throw .read(ReadError(path: source.path, code: error.code)) }
        return nil
    }
}
