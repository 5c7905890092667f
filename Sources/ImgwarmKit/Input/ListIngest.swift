import ImgwarmSystem

/// Reads every list before the first download: valid URLs go to the priority spools, invalid
/// lines and duplicates are reported at once. Reading everything first is what lets a
/// high-priority line at the end of a list start first, and gives progress its total.
struct ListIngest {
    /// Why a list could not be read: a usage error (exit code 2), before any download.
    struct ReadError: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "cannot read \(path == "-" ? "standard input" : path): \(SystemError.message(code))" }
    }

    /// Thrown from the line callback to stop reading (the run was interrupted).
    struct Stopped: Error {}

    /// Opens every list first, so a missing file stops the run before anything happens.
    static func open(_ sources: [ListSource]) throws(ReadError) -> [FileDescriptor] {
        var descriptors: [FileDescriptor] = []
        for source in sources {
            if source.path == "-" {
                descriptors.append(.standardInput)
                continue
            }
            do throws(SystemError) {
                let descriptor = try FileDescriptor.openForReading(source.path)
                if (try? descriptor.status())?.kind == .directory {
                    descriptor.close()
                    throw SystemError.isADirectory
                }
                descriptors.append(descriptor)
            } catch {
                for open in descriptors where open != .standardInput { open.close() }
                throw ReadError(path: source.path, code: error.code)
            }
        }
        return descriptors
    }

    static func read(
        _ source: ListSource, index: Int, descriptor: FileDescriptor,
        onLine: (_ line: Int, _ parsed: ListLine) throws -> Void
    ) throws {
        var reader = LineReader(descriptor: descriptor, maxLineLength: URLRules.maxLineLength)
        let format = source.effectiveFormat
        var lineNumber = 0
        var failure: Error?
        reader.forEachLine { bytes, truncated in
            guard failure == nil else { return }
            lineNumber += 1
            var line = bytes
            // A UTF-8 byte order mark at the start of the file is not part of the first line.
            if lineNumber == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
            let parsed = ListLine.parse(line, format: format, truncated: truncated)
            if parsed == .ignored { return }
            do { try onLine(lineNumber, parsed) } catch { failure = error }
        }
        if descriptor != .standardInput { descriptor.close() }
        if let failure { throw failure }
        if let error = reader.readError { throw ReadError(path: source.path, code: error.code) }
    }
}
