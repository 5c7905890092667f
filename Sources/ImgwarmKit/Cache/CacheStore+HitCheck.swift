import Curl
import ImgwarmSystem

extension CacheStore {
    /// What is at a cache file name, as the format's reader judges it now.
    public enum Lookup: Sendable, Equatable {
        /// A file the reader returns: a cache hit.
        case hit(size: Int)
        /// Nothing the reader uses (absent, empty, expired, not a regular file other than a folder).
        case miss
        /// A folder stands where the file should: it can never be written.
        case blocked
    }

    public func lookup(_ name: String, now: Timestamp = .now()) -> Lookup {
        guard mayBePresent(name), let info = try? folderDescriptor.status(of: name) else { return .miss }
        return judge(name, info, now: now)
    }

    /// False when the folder's listing at the start of the run says `name` was not there (and
    /// this run has not written it since).
    func mayBePresent(_ name: String) -> Bool {
        guard let snapshot = presentNames, let digest = CacheStore.digest(ofName: name) else { return true }
        return snapshot.contains(digest)
    }

    /// What the format's reader makes of the file `name` whose status is `info`.
    func judge(_ name: String, _ info: FileStatus, now: Timestamp) -> Lookup {
        switch location.format.read(info, now: now) {
        case .hit(let size): return index?.check(name) == nil ? .hit(size: size) : .miss
        case .miss(.folder): return .blocked
        case .miss: return .miss
        }
    }

    /// Why the hit `name` (a file of `size` bytes) holds bytes the app would not decode, or nil
    /// when it holds an image (`HitCheck`: its first and last bytes; the whole file only when
    /// they cannot tell). Reads without moving the access time where imgwarm owns the file. A
    /// file imgwarm cannot open or read is left a hit: that is `verify`'s to say.
    public func damage(of name: String, size: Int) -> String? {
        CacheStore.damage(of: name, size: size, in: folderDescriptor, storesEncoded: storesEncodedBodies)
    }

    /// True when the format keeps bodies as they came off the network (OkHttp's: a gzip body
    /// stays gzip, and the app's client decodes it when it reads the cache).
    var storesEncodedBodies: Bool { location.format is any RequestProfileFormat }

    /// `lookup(_:)`, then `damage(of:size:)` of a hit, through one opening of the file rather
    /// than three lookups of its name (a status, an opening, the touch's times): a hit's path is
    /// walked once. A hit that is not damaged comes back with its file open (the caller closes
    /// it), for `touch(_:file:)`. A name that cannot be opened so (a link, a file of another
    /// owner) is looked up by name as `lookup` does.
    public func lookupChecking(_ name: String, now: Timestamp = .now()) -> (
        lookup: Lookup, damage: String?, file: FileDescriptor?
    ) {
        guard mayBePresent(name) else { return (.miss, nil, nil) }
        let file: FileDescriptor
        let info: FileStatus
        do {
            // A FIFO, a device node or a link at the name is never opened (docs/hardening.md).
            switch try folderDescriptor.openRegularFile(name, keepingAccessTime: true, inSubfolder: true) {
            case .opened(let opened, let status): (file, info) = (opened, status)
            case .absent: return (.miss, nil, nil)
            case .other: return (lookup(name, now: now), nil, nil)
            }
        } catch {
            if error.isNotFound { return (.miss, nil, nil) }
            let found = lookup(name, now: now)
            guard case .hit(let size) = found else { return (found, nil, nil) }
            return (found, damage(of: name, size: size), nil)
        }
        let found = judge(name, info, now: now)
        if case .hit(let size) = found {
            guard let damage = CacheStore.damage(in: file, size: size, storesEncoded: storesEncodedBodies) else {
                return (found, nil, file)
            }
            file.close()
            return (found, damage, nil)
        }
        file.close()
        return (found, nil, nil)
    }

    /// `damage(of:size:)` in the cache folder `folder` (the dry run has no store).
    static func damage(of name: String, size: Int, in folder: FileDescriptor, storesEncoded: Bool) -> String? {
        guard let (opening, restore) = try? folder.openRegularFileUntouched(name, inSubfolder: true),
            case .opened(let file, _) = opening
        else { return nil }
        defer {
            if let restore { try? file.setAccessTime(restore) }
            file.close()
        }
        return damage(in: file, size: size, storesEncoded: storesEncoded)
    }

    /// `damage(of:size:)` of the open file `file`. With `storesEncoded` (a format that keeps
    /// bodies as received), a gzip file is judged by what it decodes to, as the app's client
    /// decodes it (no image starts with gzip's magic bytes).
    static func damage(in file: FileDescriptor, size: Int, storesEncoded: Bool) -> String? {
        let headCount = min(size, HitCheck.headLength)
        var head = [UInt8](repeating: 0, count: headCount)
        guard read(file, into: &head, at: 0) else { return nil }
        if storesEncoded && head.starts(with: [0x1F, 0x8B]) {
            guard size <= wholeFileLimit else { return nil }
            var bytes = [UInt8](repeating: 0, count: size)
            guard read(file, into: &bytes, at: 0) else { return nil }
            let decoded = bytes.withUnsafeBytes { raw in
                ContentDecoding.withGunzipped(raw, limit: wholeFileLimit) { decoded -> String? in
                    let verdict = HitCheck.judge(
                        head: UnsafeRawBufferPointer(rebasing: decoded.prefix(HitCheck.headLength)),
                        tail: UnsafeRawBufferPointer(rebasing: decoded.suffix(HitCheck.tailLength)), size: decoded.count
                    )
                    switch verdict {
                    case .intact: return nil
                    case .damaged(let reason): return reason
                    case .needsWholeFile(let format): return HitCheck.whole(decoded, format: format)
                    }
                }
            }
            switch decoded {
            case .success(let damage): return damage
            case .failure(.tooLarge): return nil  // past what a hit check reads: left a hit
            case .failure(.invalid): return "it is a gzip body that does not decode (not a complete gzip stream)"
            }
        }
        var tail = head
        if size > headCount {
            let tailCount = min(size, HitCheck.tailLength)
            tail = [UInt8](repeating: 0, count: tailCount)
            guard read(file, into: &tail, at: Int64(size - tailCount)) else { return nil }
        }
        let verdict = head.withUnsafeBytes { head in
            tail.withUnsafeBytes { tail in HitCheck.judge(head: head, tail: tail, size: size) }
        }
        switch verdict {
        case .intact: return nil
        case .damaged(let reason): return reason
        case .needsWholeFile(let format):
            // Rare (a JPEG with data after its end marker): the walk its validation made.
            guard size <= wholeFileLimit else { return nil }
            var bytes = [UInt8](repeating: 0, count: size)
            guard read(file, into: &bytes, at: 0) else { return nil }
            return bytes.withUnsafeBytes { HitCheck.whole($0, format: format) }
        }
    }

    /// The largest hit read whole when its ends cannot tell (`--max-bytes`'s default).
    static let wholeFileLimit = 50 << 20

    /// Fills `buffer` from `offset`; false when the file is shorter or cannot be read.
    private static func read(_ file: FileDescriptor, into buffer: inout [UInt8], at offset: Int64) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                let rest = UnsafeMutableRawBufferPointer(rebasing: raw[done...])
                return (try? file.read(into: rest, at: offset + Int64(done))) ?? -1
            }
            if count <= 0 { return false }
            done += count
        }
        return true
    }
}
