import Curl
import ImgwarmSystem

extension VerifyJob {
    /// Checks that a hit's bytes are an image the library would decode: the checks prefetch runs
    /// before it stores a body in `--validate header` mode (`ImageValidator`: the format from the
    /// magic bytes, `StructureCheck`'s walk of the whole file, the header read by `NativeHeader`
    /// or ImageMagick's ping). Garbage, a cut-short file or a broken header is `not-an-image`;
    /// imgwarm's own limits (`image-too-large`, `validation-limit`) and a format this machine's
    /// ImageMagick cannot read (`unsupported-format`) say nothing of the app's decoder, and leave
    /// the hit a hit.
    ///
    /// The file is read without moving its access time (the date SDWebImage and Nuke expire by):
    /// `O_NOATIME` where the file's owner runs imgwarm, else the access time is put back after
    /// reading, as `stats` does (docs/usage.md, "imgwarm stats").
    ///
    /// Only a regular file is opened (`openRegularFileUntouched`: its type checked before and
    /// after the opening): a FIFO or a device node swapped in since the hit was judged is a miss,
    /// never opened nor waited on.
    func inspectImage(_ check: inout Check, size: UInt64, in folder: FileDescriptor) {
        let file: FileDescriptor
        let restore: Timestamp?
        do {
            let (opening, restoreAccessTime) = try folder.openRegularFileUntouched(check.fileName, inSubfolder: true)
            switch opening {
            case .opened(let opened, _): (file, restore) = (opened, restoreAccessTime)
            case .absent:
                check.read = .miss(.absent)
                return
            case .other(let kind):
                check.read = .miss(.notAFile)
                check.detail = kind
                return
            }
        } catch {
            check.read = .miss(.unreadable)
            check.detail = error.description
            return
        }
        defer { file.close() }
        let limit = size > UInt64(configuration.maxCheckedBytes) ? ImageFormat.sniffLength : Int(size)
        var bytes = [UInt8](repeating: 0, count: limit)
        var count = 0
        var failure: SystemError?
        while count < limit {
            do {
                let read = try file.read(into: &bytes, from: count)
                if read == 0 { break }
                count += read
            } catch {
                failure = error
                break
            }
        }
        if let restore { try? file.setAccessTime(restore) }
        if let failure {
            check.read = .miss(.unreadable)
            check.detail = failure.description
            return
        }
        bytes.removeLast(limit - count)
        // A format that keeps bodies as received (OkHttp's) may hold a gzip body: the app's
        // client decodes it when it reads the cache, so its decoded bytes are the image.
        if location.format is any RequestProfileFormat && bytes.starts(with: [0x1F, 0x8B]) && limit == Int(size) {
            let decoded = bytes.withUnsafeBytes { raw in
                ContentDecoding.withGunzipped(raw, limit: configuration.maxCheckedBytes) { Array($0) }
            }
            switch decoded {
            case .success(let image): judgeBytes(&check, image, whole: true)
            case .failure(.tooLarge): check.imageFormat = nil
            case .failure(.invalid):
                check.read = .miss(.notAnImage)
                check.detail = "it is a gzip body that does not decode (not a complete gzip stream)"
            }
            return
        }
        judgeBytes(&check, bytes, whole: limit == Int(size))
    }

    /// The verdict on a hit's bytes (`whole`: all of the file; otherwise its first bytes).
    func judgeBytes(_ check: inout Check, _ bytes: [UInt8], whole: Bool) {
        bytes.withUnsafeBytes { raw in
            guard whole else {
                if let format = ImageFormat.sniff(raw) {
                    check.imageFormat = format
                } else {
                    check.read = .miss(.notAnImage)
                    check.detail =
                        "it is not an image of a known format (it starts with \(ImageValidator.describe(raw)))"
                }
                return
            }
            switch validator.validate(raw) {
            case .success(let image):
                check.imageFormat = image.format
            case .failure(let failure):
                switch failure.reason {
                case .imageTooLarge, .validationLimit, .unsupportedFormat:
                    check.imageFormat = ImageFormat.sniff(
                        UnsafeRawBufferPointer(rebasing: raw.prefix(ImageFormat.sniffLength)))
                default:
                    check.read = .miss(.notAnImage)
                    // The validator's words are about a downloaded body; here it is a file.
                    let message = failure.message
                    check.detail = message.hasPrefix("the body ") ? "the file " + message.dropFirst(9) : message
                }
            }
        }
    }
}
