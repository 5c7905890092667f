/// The JSON document `imgwarm keys detect --json` prints (schema: `docs/keys-detect.schema.json`):
/// it renders what `KeysDetectJob` found, and reads nothing itself.
public struct KeysDetectReport {
    public static let schemaVersion = 1

    public var location: CacheLocation
    public var search: KeyRuleSearch.Result
    /// Distinct URLs read, and entry names in the folder.
    public var urls: Int
    public var entries: Int

    /// The best rule when names carry the key's path extension (`KeysDetectJob.Result`).
    public var withExtension: KeyRuleSearch.Score?

    public init(
        location: CacheLocation, search: KeyRuleSearch.Result, urls: Int, entries: Int,
        withExtension: KeyRuleSearch.Score? = nil
    ) {
        (self.location, self.search, self.urls, self.entries) = (location, search, urls, entries)
        self.withExtension = withExtension
    }

    public func json(pretty: Bool = true) -> [UInt8] {
        var w = JSONWriter(pretty: pretty)
        w.beginObject()
        w.reportHeader(
            schemaVersion: KeysDetectReport.schemaVersion, command: "keys detect", cacheFolder: location.folder)
        KeysDetectReport.keyFilter(search.best.filters, &w)
        w.field("hits", search.best.hits)
        w.field("plainHits", search.plainHits)
        w.field("urls", urls)
        w.field("entries", entries)
        if let withExtension {
            w.key("withExtension")
            w.beginObject()
            KeysDetectReport.keyFilter(withExtension.filters, &w)
            w.field("hits", withExtension.hits)
            w.endObject()
        }
        w.key("candidates")
        w.beginArray()
        for candidate in search.candidates {
            w.beginObject()
            KeysDetectReport.keyFilter(candidate.filters, &w)
            w.field("hits", candidate.hits)
            w.endObject()
        }
        w.endArray()
        w.key("processed")
        w.beginArray()
        for found in search.processed {
            w.beginObject()
            w.field("library", found.form.library.name)
            w.field("identifier", found.form.identifier)
            KeysDetectReport.keyFilter(found.best.filters, &w)
            w.field("hits", found.best.hits)
            w.endObject()
        }
        w.endArray()
        w.key("normalisations")
        w.beginArray()
        for (words, count) in search.normalisations {
            w.beginObject()
            w.field("normalisation", words)
            w.field("urls", count)
            w.endObject()
        }
        w.endArray()
        w.key("unexplained")
        w.beginArray()
        for miss in search.unexplained {
            w.beginObject()
            w.field("url", miss.url)
            switch miss.nearest {
            case .normalised(let words)?: w.field("normalisation", words)
            case .rule(let specs)?:
                KeysDetectReport.keyFilter(specs, &w)
            case .processed(let form, let specs)?:
                w.field("processed", form.identifier)
                KeysDetectReport.keyFilter(specs, &w)
            case nil: break
            }
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.take()
    }

    /// `"keyFilter": [specs]`: the `--key-filter` arguments of a rule.
    private static func keyFilter(_ specs: [String], _ w: inout JSONWriter) {
        w.key("keyFilter")
        w.beginArray()
        for spec in specs { w.string(spec) }
        w.endArray()
    }
}
