import ImgwarmSystem

/// `imgwarm keys detect`: which key rule made the entries of a cache pulled off a device? Reads
/// the distinct URLs of the lists and the folder's entry names once (the index's listed names for
/// a format with an index), then lets `KeyRuleSearch` score candidate rules by membership: the
/// names are one-way digests, so keys are generated and their names looked up.
///
/// Reads only: it creates, moves, locks and writes nothing in the folder.
public struct KeysDetectJob {
    /// A run-level problem: nothing can be said.
    public enum Error: Swift.Error, Sendable, CustomStringConvertible {
        /// A list cannot be read (`code` is the errno value): a usage error.
        case unreadableInput(path: String, code: Int32)
        /// The folder (or its index) cannot be read.
        case unreadableFolder(String, String)

        public var description: String {
            switch self {
            case .unreadableInput(let path, let code): return ListIngest.ReadError(path: path, code: code).description
            case .unreadableFolder(let path, let reason): return "cannot read the cache folder \(path): \(reason)"
            }
        }
    }

    /// What the run found: the search's result, the URLs read and the names the folder holds.
    public struct Result: Sendable {
        public var search: KeyRuleSearch.Result
        /// Distinct URLs read from the lists.
        public var urls: Int
        /// Entry names in the folder (or listed by its index).
        public var entries: Int
        /// Files named as an entry plus an extension (Kingfisher's `autoExtAfterHashedFileName`):
        /// their count, and the best rule when the names are read as the key's name plus the key's
        /// path extension (nil when there are none). imgwarm writes names without it.
        public var extensionNamed = 0
        public var withExtension: KeyRuleSearch.Score?
    }

    public let location: CacheLocation
    public let sources: [ListSource]

    public init(location: CacheLocation, sources: [ListSource]) {
        self.location = location
        self.sources = sources
    }

    public func run() throws(Error) -> Result {
        let urls = try readURLs()
        let (names, extended, index) = try entryNames()
        let location = location
        var search = KeyRuleSearch(urls: urls) { key in
            guard let name = try? location.entryName(forKey: key, index: index) else { return false }
            return names.contains(name)
        }
        if !names.isEmpty {
            // The sizes the URLs ask for, from 1,000 of them spread over the list. (An empty
            // folder, or one of another format, has no processed form to probe for.)
            let sample = stride(from: 0, to: urls.count, by: max(1, urls.count / 1000)).lazy.map { urls[$0] }
            search.forms = ProcessedKeyForm.builtIn(sizes: ProcessedKeyForm.sizesSeen(in: sample))
        }
        var result = Result(search: search.run(), urls: urls.count, entries: names.count)
        result.extensionNamed = extended.count
        if !extended.isEmpty {
            let withExtension = KeyRuleSearch(urls: urls) { key in
                guard let name = try? location.entryName(forKey: key, index: index) else { return false }
                return extended.contains(name + "." + KeysDetectJob.pathExtension(key))
            }
            result.withExtension = withExtension.run().best
        }
        return result
    }

    /// The extension of the key's last path segment (as `URL.pathExtension` gives it), or "".
    static func pathExtension(_ key: String) -> String {
        ProcessedKeyForm.pathExtension(KeyFilter.URLParts(key).beforeQuery)
    }

    /// The distinct URLs of the lists, in list order (a line's explicit key is not a URL's: it
    /// is left out of the search, its URL is not).
    private func readURLs() throws(Error) -> [String] {
        let lists: [OpenedList]
        do {
            lists = try ListIngest.open(sources)
        } catch {
            throw .unreadableInput(path: error.path, code: error.code)
        }
        var urls: [String] = []
        var seen = Set<String>()
        for (index, list) in lists.enumerated() {
            do {
                try ListIngest.read(list, index: index) {
                    (_, parsed) throws(Never) -> Bool in
                    switch parsed {
                    case .url(let url, _, _), .file(let url, _, _, _):
                        if seen.insert(url).inserted { urls.append(url) }
                    // An SVG of a capture names no entry unless the app has a plugin: it would
                    // only swell the unexplained.
                    case .ignored, .invalid, .unsupported: break
                    }
                    return true
                }
            } catch {
                switch error {
                case .read(let error): throw .unreadableInput(path: error.path, code: error.code)
                case .line(let never): switch never {}
                }
            }
        }
        return urls
    }

    /// The folder's entry names, once: the index's listed names where the format keeps one (the
    /// library serves only those), else the files whose names are the format's.
    /// Also the files named as an entry plus an extension, which the format does not name.
    private func entryNames() throws(Error) -> (Set<String>, Set<String>, (any CacheIndex)?) {
        if let index = location.makeIndex() {
            do {
                try index.load()
            } catch {
                throw .unreadableFolder(location.folder, error.description)
            }
            return (Set(index.listedNames), [], index)
        }
        var names = Set<String>()
        let folder: FileDescriptor
        do {
            folder = try FileDescriptor.openFolder(location.folder)
        } catch {
            if error.isNotFound { return (names, [], nil) }
            throw .unreadableFolder(location.folder, error.description)
        }
        defer { folder.close() }
        let format = location.format
        var extended = Set<String>()
        do {
            try FolderWalk.forEach(in: folder) { bytes, _ in
                if format.isEntryName(bytes: bytes) {
                    names.insert(String(decoding: bytes, as: UTF8.self))
                } else if let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0,
                    format.isEntryName(bytes: UnsafeBufferPointer(rebasing: bytes[..<dot]))
                {
                    extended.insert(String(decoding: bytes, as: UTF8.self))
                }
            }
        } catch {
            throw .unreadableFolder(location.folder, String(describing: error))
        }
        return (names, extended, nil)
    }
}
