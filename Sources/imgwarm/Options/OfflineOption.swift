import ArgumentParser

/// `--offline`: seed from what HAR captures recorded, with no request at all (prefetch).
struct OfflineOption: ParsableArguments {
    @Flag(
        name: .customLong("offline"),
        help: ArgumentHelp(
            "Make no request: store each HAR entry's recorded body (and JSON Lines \"file\" lines); an entry without one is no-body, exit 1 (default off: entries are downloaded).",
            discussion:
                "Each image entry's recorded body is validated as a download is and stored with its recorded status and response headers (ETag, Last-Modified, Cache-Control, Content-Type; an OkHttp cache keeps every header that describes the stored body, and the Vary request headers, with the dates moved by the capture's age). A 304, a body the capture left out, a content.size that differs from it, bad base64 and a plain URL line end as no-body: not blacklisted, not retried."
        ))
    var offline = false
}
