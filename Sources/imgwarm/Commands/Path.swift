import ArgumentParser
import ImgwarmKit

/// `imgwarm path KEY...`: where the cache format's library stores each key (docs/usage.md, "Commands").
struct Path: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the cache file path of each key.",
        discussion: """
            A key is any string, usually an image URL exactly as the app passes it to its image \
            library. The file name is the library's (--cache-format), made from the key as \
            docs/cache-formats.md and docs/cache-formats-android.md say, of this shape:
            \(FormatHelp.entryNames)
            A format whose library keeps a database (\(FormatHelp.formatsWithDatabase.joined(separator: ", "))) \
            names a file when it downloads it: the path printed is the file of the key's row in \
            the database (--database), and a key without \
            a row prints nothing but a message (exit 1). So does a key the library never stores: a \
            URL OkHttp's HttpUrl refuses, a PINRemoteImage key whose encoded file name would pass \
            255 bytes (invalid, with the reason). With - the keys are read from standard input, one per line \
            (only the line ending is removed), so one process handles any number of keys.

            With --key-filter (the filters of prefetch) each argument or line is taken as a URL \
            and its key is computed the way the app's cacheKeyFilter does: the path printed is the \
            file that app reads. A key the filters make empty is skipped with a message (exit 1).

            A file name holds whatever the key's extension holds, control characters included \
            (SDWebImage names the file the same way). So that each path is one line, a path is \
            printed with a backslash as \\\\, newline, tab, carriage return, bell, backspace, form \
            feed and vertical tab as \\n \\t \\r \\a \\b \\f \\v, and any other control character \
            as \\xHH per UTF-8 byte (GNU ls --quoting-style=escape). With -0 (--null) each path \
            is printed as it is and ends with a NUL byte instead of a newline, for xargs -0.

            Examples:
              imgwarm path https://example.com/a.jpg
              imgwarm path --name-only 'https://example.com/a.jpg?w=100'
              imgwarm path --cache-format kingfisher https://example.com/a.jpg
              cut -f1 keys.tsv | imgwarm path - > paths.txt
              imgwarm path --key-filter strip-query 'https://cdn.example.com/a.jpg?token=1'
              imgwarm path -0 - < keys.txt | xargs -0 ls -l

            \(ExitStatus.helpText)
            """)

    @OptionGroup var location: CacheLocationOptions
    @OptionGroup var keyOptions: KeyFilterOptions

    @Flag(name: .customLong("name-only"), help: "Print only the file names, not the folder.")
    var nameOnly = false

    @Flag(
        name: [.customShort("0"), .customLong("null")],
        help: "End each path with a NUL byte instead of a newline, unescaped (for xargs -0).")
    var null = false

    @Argument(help: ArgumentHelp("The keys; - reads them from standard input.", valueName: "key"))
    var keys: [String] = []

    func validate() throws {
        if keys.isEmpty { throw ValidationError("give at least one key, or - to read keys from standard input") }
    }

    func run() throws {
        let location = try location.location()
        let job: PathJob
        do { job = try PathJob(location: location, keyFilters: keyOptions.chain) } catch {
            throw CommandFailure.cache(error.description)
        }
        var output = OutputBuffer()
        let folder = job.location.folder
        let prefix = nameOnly ? "" : (folder.hasSuffix("/") ? folder : folder + "/")
        var failures = 0
        for key in keys {
            if key == "-" {
                failures += readKeys(prefix: prefix, job: job, into: &output)
            } else if let printed = printPath(key, prefix: prefix, job: job, into: &output) {
                if !printed {
                    Console.error("\(Redaction.redact(key)): the key filters made the key empty; skipped")
                    failures += 1
                }
            } else {
                failures += 1
            }
        }
        output.flush()
        if failures > 0 { throw ExitStatus.partial }
    }

    /// Prints the path of `argument`'s key; false (nothing printed) when the key filters made the
    /// key empty, nil (nothing printed, a message said why) when the key has no entry name.
    private func printPath(_ argument: String, prefix: String, job: PathJob, into output: inout OutputBuffer)
        -> Bool?
    {
        let name: String
        switch job.name(for: argument) {
        case .name(let found): name = found
        case .emptyKey: return false
        case .unnamed(let why):
            output.flush()
            Console.error("\(Redaction.redact(job.keyFilters.key(for: argument))): \(why)")
            return nil
        case .refused(let why):
            output.flush()
            Console.error("\(Redaction.redact(job.keyFilters.key(for: argument))): invalid: \(why)")
            return nil
        }
        if null {
            output.append(prefix)
            output.append(name)
            output.append("\0")
        } else {
            output.append(EscapedText.escaped(prefix + name))
            output.append("\n")
        }
        return true
    }

    /// Prints the path of every line of standard input; returns how many lines were skipped.
    private func readKeys(prefix: String, job: PathJob, into output: inout OutputBuffer) -> Int {
        var failures = 0
        var lineNumber = 0
        var reader = LineReader(descriptor: .standardInput, maxLineLength: 16 << 20)
        reader.forEachLine { line, truncated in
            lineNumber += 1
            if truncated {
                output.flush()
                Console.error("standard input line \(lineNumber): the key is longer than 16 MiB; skipped")
                failures += 1
                return
            }
            var bytes = line
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            guard let key = String(validating: bytes, as: UTF8.self) else {
                output.flush()
                Console.error("standard input line \(lineNumber): the key is not valid UTF-8; skipped")
                failures += 1
                return
            }
            guard let printed = printPath(key, prefix: prefix, job: job, into: &output) else {
                failures += 1
                return
            }
            if !printed {
                output.flush()
                Console.error("standard input line \(lineNumber): the key filters made the key empty; skipped")
                failures += 1
            }
        }
        if let error = reader.readError {
            output.flush()
            Console.error("cannot read standard input: \(error)")
            failures += 1
        }
        return failures
    }
}

/// Buffers standard output in 64 KiB writes.
struct OutputBuffer {
    private var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(1 << 16) }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !bytes.isEmpty else { return }
        Console.output(bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}
