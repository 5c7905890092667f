import Archive
import ImgwarmSystem

/// `imgwarm pull`: the reverse of `push` (docs/pack.md, "Android"): the app's cache folder (and
/// flutter's database) out of its container through `adb exec-out run-as … tar -c`, laid out as
/// the container (`<output>/cache/…`, `<output>/files/…`), so that `verify` and `keys detect`
/// read what the app really has.
///
/// The device is untrusted input (docs/hardening.md, "The device boundary"): its stream is read
/// here, by libarchive's parser, bounded in size and in silence, and only files and folders of the
/// format's own folders are created (`PullStaging`), in a private folder beside the output. A
/// pull is complete or absent: the stream must end with its end-of-archive blocks, every part
/// must have arrived, and only then does one rename put the staging folder at the output. Any
/// failure removes it and leaves the output as it was (not created when it did not exist).
public struct PullJob {
    public struct Configuration: Sendable, Equatable {
        /// The most bytes the device's stream may carry; past it the copy stops. 16 GiB by default
        /// (an app's image cache is megabytes to a few hundred: Glide's default is 250 MB).
        public var streamLimit: UInt64 = 16 << 30
        /// Seconds the stream may stay silent before the copy stops. 60 by default.
        public var stallTimeout: Double = 60

        public init() {}
    }

    let format: any CacheFormat
    let namespace: String
    let device: AndroidDevice
    let output: String
    let configuration: Configuration

    public init(
        format: any CacheFormat, namespace: String?, device: AndroidDevice, output: String,
        configuration: Configuration = Configuration()
    ) {
        self.format = format
        self.namespace = namespace ?? CacheLocation.defaultNamespace
        self.device = device
        self.output = CacheLocation.absolute(output)
        self.configuration = configuration
    }

    public enum Error: Swift.Error, CustomStringConvertible {
        case device(AndroidDevice.Failure)
        /// The app's container has no such folder or file: its path there.
        case noFolder(String)
        /// The output folder holds something already, or is no folder.
        case outputNotEmpty(String)
        /// The output's parent folder is missing.
        case noParent(String)
        /// A member of the device's stream that is refused: its name (escaped by the caller),
        /// why, the output.
        case refusedMember(String, String, String)
        /// The stream ended before its end-of-archive blocks, or inside a member: what was
        /// said, the output.
        case cut(String, String)
        /// The stream went past `Configuration.streamLimit`: the limit, the output.
        case tooLarge(UInt64, String)
        /// Nothing came for `Configuration.stallTimeout` seconds.
        case stalled(Double, String)
        /// A part the device listed did not arrive: its path, the output.
        case missingPart(String, String)
        case local(String)

        public var description: String {
            switch self {
            case .device(let failure):
                if case .stopped = failure { return failure.description + "; nothing was written" }
                return failure.description
            case .noFolder(let path):
                return
                    "the app has no \(path) in its container: it has cached nothing with this library yet, or it uses another (\(Setting.cacheFormat)); nothing was written"
            case .outputNotEmpty(let path): return "\(path) is not an empty folder: pull into a new or empty folder"
            case .noParent(let path):
                return "the folder \(path) does not exist: create it first, or pull elsewhere"
            case .refusedMember(let name, let reason, let output):
                return
                    "the device sent \(name), \(reason): only files and folders of the cache are taken; nothing was written to \(output)"
            case .cut(let said, let output):
                return
                    "the copy from the device is incomplete (\(said)): the device may have gone away or its tar failed; nothing was written to \(output)"
            case .tooLarge(let limit, let output):
                return
                    "the device sent more than \(Quantities.formatSize(limit)) (\(Setting.streamLimit)): the copy was stopped, nothing was written to \(output)"
            case .stalled(let seconds, let output):
                return
                    "the device sent nothing for \(Int(seconds)) s (\(Setting.stallTimeout)): the copy was stopped, nothing was written to \(output)"
            case .missingPart(let path, let output):
                return
                    "the device's stream did not hold \(path), which the app has: nothing was written to \(output); run pull again"
            case .local(let said): return "extracting here failed: \(said)"
            }
        }
    }

    /// The parts pulled, relative to the container: the cache folder and the format's outside files.
    public var parts: [String] {
        [folder] + outsideParts
    }

    private var folder: String {
        format.folder(cachesRoot: AppContainer.path(of: .caches, on: .android), namespace: namespace)
    }

    private var outsideParts: [String] {
        let location = CacheLocation(folder: "/" + folder, format: format)
        let outside = (format as? any OutsideFilesFormat)?.outsideFiles(of: location) ?? []
        return outside.map { AppContainer.path(of: $0.folder, on: .android) + "/" + $0.name }
    }

    /// Pulls; returns the folder the cache is in here.
    public func run() throws(Error) -> String {
        let parent = CacheLocation.split(output).parent
        try checkOutput(parent: parent)
        do {
            try device.check()
        } catch {
            throw .device(error)
        }
        do {
            for part in parts {
                let found = try device.runAs("test -e \(AndroidDevice.quote(part))")
                guard found.status == 0 else {
                    if (try? device.attachedSerials())?.isEmpty == false { throw Error.noFolder(part) }
                    try device.failure("looking for \(part)", found)
                }
            }
        } catch let error as Error {
            throw error
        } catch let failure as AndroidDevice.Failure {
            throw .device(failure)
        } catch {
            throw .local("\(error)")
        }
        let staging: PullStaging
        do {
            staging = try PullStaging(in: parent, folders: [folder], files: outsideParts)
        } catch {
            throw .local("cannot make a private folder in \(parent): \(error)")
        }
        do {
            try stream(into: staging)
            let expected = [(folder, true)] + outsideParts.map { ($0, false) }
            if let missing = try staging.finish(expecting: expected) { throw Error.missingPart(missing, output) }
            try FileSystem.rename(staging.path, to: output)
        } catch {
            staging.discard()
            switch error {
            case let error as Error: throw error
            case let failure as AndroidDevice.Failure: throw .device(failure)
            case let refusal as PullStaging.Refusal: throw .refusedMember(refusal.member, refusal.reason, output)
            default: throw .local("\(error)")
            }
        }
        return output + "/" + folder
    }

    /// The output must be a new name in an existing folder, or an empty folder (no link).
    private func checkOutput(parent: String) throws(Error) {
        guard (try? FileSystem.status(ofPath: parent))?.kind == .directory else { throw .noParent(parent) }
        guard let info = try? FileSystem.status(ofPath: output, followingLinks: false) else {
            if FileSystem.exists(output) { throw .outputNotEmpty(output) }
            return
        }
        guard info.kind == .directory, let folder = try? FileDescriptor.openFolder(output) else {
            throw .outputNotEmpty(output)
        }
        defer { folder.close() }
        var empty = true
        try? folder.forEachEntry { _ in empty = false }
        guard empty else { throw .outputNotEmpty(output) }
    }

    /// `adb exec-out run-as PKG tar -c -f - PARTS`, read here member by member into `staging`.
    private func stream(into staging: PullStaging) throws {
        let pipe = try ChildProcess.pipe()
        let errors = try FileDescriptor.scratchFile(in: device.scratchFolder)
        defer { errors.close() }
        let command = device.asAppCommand(["tar", "-c", "-f", "-"] + parts)
        let adb: ChildProcess
        do {
            adb = try ChildProcess.spawn(
                device.adb, device.adbArguments(["exec-out", command]), input: nil, output: pipe.write, errors: errors)
        } catch {
            pipe.read.close()
            pipe.write.close()
            throw AndroidDevice.Failure.noAdb(device.adb, error)
        }
        pipe.write.close()
        defer { pipe.read.close() }
        let source = DeviceStream(
            pipe.read, stop: device.stop, limit: configuration.streamLimit, stall: configuration.stallTimeout)
        do {
            do {
                try staging.fill(from: TarReader(source: source))
            } catch let refusal as PullStaging.Refusal {
                throw Error.refusedMember(refusal.member, refusal.reason, output)
            }
            // What follows the end (a tar pads its last record with zeros) is read, within the bounds.
            try source.drain()
        } catch {
            // adb's own end comes first: a device gone mid-copy cuts the stream too.
            if let status = adb.wait(atMost: 1), status != 0, !(error is Error), !(error is DeviceStream.Failure) {
                try device.failure("the copy (adb exec-out)", finished(status, errors))
            }
            adb.terminate()
            switch error {
            case DeviceStream.Failure.stopped(let signal): throw AndroidDevice.Failure.stopped(signal)
            case DeviceStream.Failure.tooLarge: throw Error.tooLarge(configuration.streamLimit, output)
            case DeviceStream.Failure.stalled: throw Error.stalled(configuration.stallTimeout, output)
            case let failure as TarReader.Failure: throw Error.cut(failure.description, output)
            default: throw error
            }
        }
        let status: Int32
        do {
            status = try adb.wait(unlessReadable: device.stop.descriptor)
        } catch {
            throw AndroidDevice.Failure.stopped(device.stop.signal)
        }
        if status != 0 { try device.failure("the copy (adb exec-out)", finished(status, errors)) }
    }

    /// What adb said on its errors, as a finished program's.
    private func finished(_ status: Int32, _ errors: FileDescriptor) -> ChildProcess.Finished {
        var said = [UInt8](repeating: 0, count: 4096)
        let count = (try? errors.read(into: &said, from: 0, at: 0)) ?? 0
        return ChildProcess.Finished(status: status, output: [], errors: Array(said[0..<count]))
    }
}

/// The device's stream as `TarReader` reads it: from adb's output pipe, bounded in bytes
/// (`limit`) and in silence (`stall` seconds), and ended by a stop signal.
final class DeviceStream: TarSource {
    enum Failure: Swift.Error {
        case stopped(Int32)
        case tooLarge
        case stalled
    }

    private let pipe: FileDescriptor
    private let stop: StopSource
    private let limit: UInt64
    private let stall: Double
    private(set) var total: UInt64 = 0

    init(_ pipe: FileDescriptor, stop: StopSource, limit: UInt64, stall: Double) {
        self.pipe = pipe
        self.stop = stop
        self.limit = limit
        self.stall = stall
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch pipe.waitReadable(unlessReadable: stop.descriptor, atMost: stall) {
        case .stopped: throw Failure.stopped(stop.signal)
        case .timedOut: throw Failure.stalled
        case .ready: break
        }
        let count = try pipe.read(into: buffer)
        total += UInt64(count)
        if total > limit { throw Failure.tooLarge }
        return count
    }

    /// Reads the rest of the stream, within the same bounds.
    func drain() throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while try read(into: buffer) > 0 {}
    }
}
