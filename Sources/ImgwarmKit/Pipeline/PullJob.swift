import ImgwarmSystem

/// `imgwarm pull`: the reverse of `push` (docs/pack.md, "Android"): the app's cache folder (and
/// flutter's database) out of its container through `adb exec-out run-as … tar -c`, extracted
/// here by the local `tar` with the times kept, laid out as the container (`<output>/cache/…`,
/// `<output>/files/…`), so that `verify` and `keys detect` read what the app really has.
/// Extracted into a scratch folder inside the output first: a failure leaves no partial cache.
public struct PullJob {
    let format: any CacheFormat
    let namespace: String
    let device: AndroidDevice
    let output: String

    public init(format: any CacheFormat, namespace: String?, device: AndroidDevice, output: String) {
        self.format = format
        self.namespace = namespace ?? CacheLocation.defaultNamespace
        self.device = device
        self.output = CacheLocation.absolute(output)
    }

    public enum Error: Swift.Error, CustomStringConvertible {
        case device(AndroidDevice.Failure)
        /// The app's container has no such folder: its path there.
        case noFolder(String)
        /// The output folder holds something already.
        case outputNotEmpty(String)
        case local(String)

        public var description: String {
            switch self {
            case .device(let failure): return failure.description
            case .noFolder(let path):
                return
                    "the app has no \(path) in its container: it has cached nothing with this library yet, or it uses another (\(Setting.cacheFormat))"
            case .outputNotEmpty(let path): return "\(path) is not empty: pull into a new or empty folder"
            case .local(let said): return "extracting here failed: \(said)"
            }
        }
    }

    /// The parts pulled, relative to the container: the cache folder and the format's outside files.
    public var parts: [String] {
        let caches = AppContainer.path(of: .caches, on: .android)
        let folder = format.folder(cachesRoot: caches, namespace: namespace)
        let location = CacheLocation(folder: "/" + folder, format: format)
        let outside = (format as? any OutsideFilesFormat)?.outsideFiles(of: location) ?? []
        return [folder] + outside.map { AppContainer.path(of: $0.folder, on: .android) + "/" + $0.name }
    }

    /// Pulls; returns the folder the cache is in here.
    public func run() throws(Error) -> String {
        do {
            try device.check()
        } catch {
            throw .device(error)
        }
        let parts = parts
        do {
            let found = try device.runAs("test -d \(AndroidDevice.quote(parts[0]))")
            guard found.status == 0 else {
                if (try? device.attachedSerials())?.isEmpty == false { throw Error.noFolder(parts[0]) }
                try device.failure("looking for the cache folder", found)
            }
        } catch let error as Error {
            throw error
        } catch let failure as AndroidDevice.Failure {
            throw .device(failure)
        } catch {
            throw .local("\(error)")
        }
        var present: [String] = []
        for part in parts where (try? device.runAs("test -e \(AndroidDevice.quote(part))"))?.status == 0 {
            present.append(part)
        }
        if FileSystem.exists(output) {
            var empty = true
            if let folder = try? FileDescriptor.openFolder(output) {
                try? folder.forEachEntry { _ in empty = false }
                folder.close()
            }
            guard empty else { throw .outputNotEmpty(output) }
        } else {
            do {
                try CacheLocation.makeParentFolders(of: output)
                try FileSystem.makeFolder(output)
            } catch {
                throw .local("\(error)")
            }
        }
        let scratch = output + "/.imgwarm-pull"
        do {
            try FileSystem.makeFolder(scratch, permissions: 0o700)
            try stream(present, into: scratch)
            for part in present {
                let first = String(part.prefix { $0 != "/" })
                if !FileSystem.exists(output + "/" + first) {
                    try FileSystem.rename(scratch + "/" + first, to: output + "/" + first)
                }
            }
        } catch {
            _ = try? ChildProcess.run("rm", ["-rf", scratch], scratchFolder: device.scratchFolder)
            if let error = error as? Error { throw error }
            if let failure = error as? AndroidDevice.Failure { throw .device(failure) }
            throw .local("\(error)")
        }
        _ = try? ChildProcess.run("rm", ["-rf", scratch], scratchFolder: device.scratchFolder)
        return output + "/" + parts[0]
    }

    /// `adb exec-out run-as PKG tar -c PARTS` into the local `tar -x` (GNU tar keeps the times).
    private func stream(_ parts: [String], into folder: String) throws {
        let pipe = try ChildProcess.pipe()
        let errors = try FileDescriptor.scratchFile(in: device.scratchFolder)
        defer { errors.close() }
        let tarErrors = try FileDescriptor.scratchFile(in: device.scratchFolder)
        defer { tarErrors.close() }
        let adbArguments = device.adbArguments(["exec-out"] + device.runAsWords + ["tar", "-c", "-f", "-"] + parts)
        let adb: ChildProcess
        do {
            adb = try ChildProcess.spawn(device.adb, adbArguments, input: nil, output: pipe.write, errors: errors)
        } catch {
            pipe.read.close()
            pipe.write.close()
            throw AndroidDevice.Failure.noAdb(device.adb, error)
        }
        pipe.write.close()
        let tar = try? ChildProcess.spawn(
            "tar", ["-x", "-f", "-", "-C", folder], input: pipe.read, output: tarErrors, errors: tarErrors)
        pipe.read.close()
        let adbStatus = adb.wait()
        let tarStatus = tar?.wait() ?? 127
        if adbStatus != 0 {
            var said = [UInt8](repeating: 0, count: 4096)
            let count = (try? errors.read(into: &said, from: 0, at: 0)) ?? 0
            let finished = ChildProcess.Finished(status: adbStatus, output: [], errors: Array(said[0..<count]))
            try device.failure("the copy (adb exec-out)", finished)
        }
        if tarStatus != 0 {
            var said = [UInt8](repeating: 0, count: 4096)
            let count = (try? tarErrors.read(into: &said, from: 0, at: 0)) ?? 0
            throw Error.local("tar -x exited with \(tarStatus): \(String(decoding: said[0..<count], as: UTF8.self))")
        }
    }
}
