import ImgwarmSystem

/// `imgwarm push`: the cache packed for Android (`PackJob`) and put into a debuggable app's
/// container through adb (docs/pack.md, "Android").
///
/// The device is checked first (`AndroidDevice.check`); the app is stopped; the archive is
/// extracted as the app's user into a staging folder of its container (`.imgwarm-push`),
/// streamed through `adb exec-in` (binary-safe: no terminal, unlike `adb shell`'s stdin) or,
/// where this adb has no `exec-in`, pushed to `/data/local/tmp` and extracted from there. The
/// staging folder is listed back and compared with the manifest; only when every file arrived
/// with its size does each of the cache's parts (its folder, flutter's database) replace the
/// app's as a whole (a rename: the app's own journal and the seed's are never mixed). A failure
/// before that leaves the app's folder as it was. With the device's `root` (a release build on a
/// rootable emulator image) the same steps run as root after `adb root`, and the staging folder
/// is given to the app's uid (`chown -R`, `restorecon -R`) before the check.
public struct PushJob {
    let location: CacheLocation
    var device: AndroidDevice
    let lockTimeout: Double

    public init(location: CacheLocation, device: AndroidDevice, lockTimeout: Double = CacheLock.defaultTimeout) {
        self.location = location
        self.device = device
        self.lockTimeout = lockTimeout
    }

    /// The staging folder, in the app's container.
    public static let staging = ".imgwarm-push"

    /// What happened, step by step, for the console.
    public enum Event: Sendable {
        /// The archive went through `exec-in`, or through a file in `/data/local/tmp`.
        case transferred(viaExecIn: Bool, files: Int, bytes: UInt64)
        /// The app's `path` (in its container) is about to be replaced as a whole.
        case replacing(String)
        /// A file whose modification time arrived other than packed (seconds): path, packed, found.
        case timeDiffers(String, Int64, Int64)
        /// Root was asked for: granted (the app's uid), or refused (nil) and run-as used instead.
        case root(uid: Int?)
    }

    /// What was pushed.
    public struct Result: Sendable {
        public var files: Int
        public var bytes: UInt64
        /// The files whose modification time differs from the manifest's.
        public var timeDifferences: Int
    }

    public enum Error: Swift.Error, CustomStringConvertible {
        case pack(PackJob.Error)
        case device(AndroidDevice.Failure)
        case scratch(SystemError)
        /// The staging folder does not hold what the manifest lists: the differences.
        case incomplete([String])

        public var description: String {
            switch self {
            case .pack(let error): return error.description
            case .device(let failure):
                if case .lost = failure {
                    return failure.description
                        + "; the app's cache was left as it was (the staging folder \(PushJob.staging) may remain in its container: the next push replaces it)"
                }
                return failure.description + "; the app's cache was left as it was"
            case .scratch(let error): return "cannot write the archive to a scratch file: \(error)"
            case .incomplete(let differences):
                return
                    "the files extracted on the device differ from the manifest (\(differences.prefix(5).joined(separator: "; "))): the app's cache was left as it was"
            }
        }
    }

    /// Packs the cache into a private scratch folder first (the local cache is checked before
    /// the device is asked anything), then checks the device and pushes.
    public func run(observe: (Event) -> Void) throws(Error) -> Result {
        guard location.format.platforms.contains(.android) else {
            throw .pack(.otherPlatform(location.format.name, .android, Array(location.format.platforms)))
        }
        let scratch: String
        do {
            scratch = try FileSystem.makePrivateFolder(in: device.scratchFolder, prefix: "imgwarm-push-")
        } catch {
            throw .scratch(error)
        }
        defer { try? FileSystem.removeTree(scratch) }
        let archivePath = scratch + "/cache.tar"
        let archive: FileDescriptor
        do {
            // In a folder of this user's alone (mkdtemp, 0700), created new (O_EXCL), 0600.
            archive = try FileDescriptor.createFile(archivePath, permissions: 0o600)
        } catch {
            throw .scratch(error)
        }
        defer { archive.close() }
        var configuration = PackJob.Configuration(platform: .android)
        configuration.lockTimeout = lockTimeout
        configuration.stop = device.stop
        let packed: PackJob.Result
        do {
            packed = try PackJob(location: location, configuration: configuration).run { bytes throws(SystemError) in
                try archive.writeAll(bytes)
            }
        } catch {
            throw .pack(error)
        }
        var job = self
        do {
            job.device = try device.check()
        } catch {
            throw .device(error)
        }
        if device.root { observe(.root(uid: job.device.rootUID)) }
        return try job.push(packed, archivePath: archivePath, observe: observe)
    }

    /// The push once the cache is packed and the device passed its checks.
    private func push(_ packed: PackJob.Result, archivePath: String, observe: (Event) -> Void) throws(Error) -> Result {
        let outside = (location.format as? any OutsideFilesFormat)?.outsideFiles(of: location) ?? []
        let parts =
            [packed.containerFolder] + outside.map { AppContainer.path(of: $0.folder, on: .android) + "/" + $0.name }
        do {
            try device.stopApp()
            try device.mustRunAs(
                "rm -rf \(PushJob.staging) && mkdir \(PushJob.staging)", step: "making the staging folder")
            let viaExecIn = try transfer(path: archivePath)
            observe(.transferred(viaExecIn: viaExecIn, files: packed.files, bytes: packed.bytes))
            try device.giveToApp([PushJob.staging], step: "giving the files to the app's uid (chown, restorecon)")
            let found = try listStaging()
            var missing: [String] = []
            var timeDifferences = 0
            for entry in packed.entries {
                guard let (size, modified) = found[entry.path] else {
                    missing.append("\(entry.path) is missing")
                    continue
                }
                if size != entry.size { missing.append("\(entry.path) has \(size) bytes, not \(entry.size)") }
                if modified != entry.modified.seconds {
                    timeDifferences += 1
                    observe(.timeDiffers(entry.path, entry.modified.seconds, modified))
                }
            }
            let extra = Set(found.keys).subtracting(packed.entries.map(\.path)).subtracting([PackJob.manifestName])
            missing += extra.sorted().map { "\($0) is not in the manifest" }
            guard missing.isEmpty else {
                _ = try? device.mustRunAs("rm -rf \(PushJob.staging)", step: "removing the staging folder")
                throw Error.incomplete(missing)
            }
            for part in parts {
                let present = try device.runAs("test -e \(AndroidDevice.quote(part))")
                if present.status == 0 { observe(.replacing(part)) }
            }
            try swap(parts)
            return Result(files: packed.files, bytes: packed.bytes, timeDifferences: timeDifferences)
        } catch let error as Error {
            throw error
        } catch let failure as AndroidDevice.Failure {
            // Nothing of the app's cache was changed before the swap; the staging folder goes
            // (not after a stop: the signal asked to end, and adb would be asked again).
            if case .stopped = failure {} else { _ = try? device.runAs("rm -rf \(PushJob.staging)") }
            throw .device(failure)
        } catch {
            throw .device(.failed("push", "\(error)"))
        }
    }

    /// Extracts the archive into the staging folder: through `exec-in` where this adb has it,
    /// else through a file pushed to `/data/local/tmp`. True when `exec-in` carried it.
    private func transfer(path: String) throws(AndroidDevice.Failure) -> Bool {
        let probe = try device.run(["exec-in", device.asAppCommand(["true"])])
        if probe.status == 0 {
            let input: FileDescriptor
            do {
                input = try FileDescriptor.openForReading(path)
            } catch {
                throw .failed("reading the archive", "\(error)")
            }
            defer { input.close() }
            let extract = device.asAppCommand(["tar", "-x", "-f", "-", "-C", PushJob.staging])
            let result = try device.run(["exec-in", extract], input: input)
            guard result.status == 0 else { try device.failure("the copy (adb exec-in)", result) }
            return true
        }
        // adb push keeps the local mode (0600, this user's): the shell user, who owns the copy on
        // the device, opens it to the app's user, which reads it through run-as.
        let remote = "/data/local/tmp/imgwarm-push-\(FileSystem.processID)-\(UInt32.random(in: 0...UInt32.max)).tar"
        let pushed = try device.run(["push", path, remote])
        guard pushed.status == 0 else { try device.failure("adb push to /data/local/tmp", pushed) }
        defer { _ = try? device.run(["shell", AndroidDevice.commandLine(["rm", "-f", remote])]) }
        let opened = try device.run(["shell", AndroidDevice.commandLine(["chmod", "644", remote])])
        guard opened.status == 0 else { try device.failure("chmod 644 in /data/local/tmp", opened) }
        try device.mustRunAs(
            "tar -x -f \(AndroidDevice.quote(remote)) -C \(PushJob.staging)", step: "extracting from /data/local/tmp")
        return false
    }

    /// The staging folder's files: path in the container → size and modification time (seconds).
    private func listStaging() throws(AndroidDevice.Failure) -> [String: (UInt64, Int64)] {
        let listing = try device.mustRunAs(
            "cd \(PushJob.staging) && find . -type f -exec stat -c '%s %Y %n' {} +", step: "listing the files back")
        var found: [String: (UInt64, Int64)] = [:]
        for line in ChildProcessOutput(listing).lines {
            let words = line.split(separator: " ", maxSplits: 2)
            guard words.count == 3, let size = UInt64(words[0]), let time = Int64(words[1]) else { continue }
            let name = words[2].hasPrefix("./") ? words[2].dropFirst(2) : words[2]
            found[String(name)] = (size, time)
        }
        return found
    }

    /// Each part of the cache replaces the app's as a whole: the app's moved aside, the seed's
    /// renamed into place, the app's removed; then the staging folder goes.
    private func swap(_ parts: [String]) throws(AndroidDevice.Failure) {
        var script: [String] = []
        for part in parts {
            let target = AndroidDevice.quote(part)
            let old = AndroidDevice.quote(part + ".imgwarm-old")
            let parent = AndroidDevice.quote(CacheLocation.split("/" + part).parent.dropFirst().description)
            // As root, a parent made here is the app's too.
            let own = device.rootUID.map { " && chown \($0):\($0) \(parent) && restorecon \(parent)" } ?? ""
            script.append(
                "mkdir -p \(parent)\(own) && rm -rf \(old) && { test ! -e \(target) || mv \(target) \(old); } && mv \(AndroidDevice.quote(PushJob.staging + "/" + part)) \(target) && rm -rf \(old)"
            )
        }
        script.append("rm -rf \(PushJob.staging)")
        try device.mustRunAs(script.joined(separator: " && "), step: "replacing the app's cache")
    }
}
