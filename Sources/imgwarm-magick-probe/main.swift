// A test helper, not a user command: reads one image with ImageMagick on several threads at
// once, as a validating prefetch does, to show that no read can end or hang the process.
//
//   imgwarm-magick-probe FILE CODER THREADS SECONDS [TIME_LIMIT]
//
// Each of THREADS threads pings and decodes FILE with CODER, again and again, for SECONDS; then
// it prints "WIDTHxHEIGHT READS" and exits 0. A failed read prints ImageMagick's message and
// exits 1. With ImageMagick's process-wide time limit restarted before each read (imgwarm
// before issue 21), such a process died of a fatal "time limit exceeded" or hung.
import Glibc
import Magick

let arguments = CommandLine.arguments
guard arguments.count >= 5, let threads = Int(arguments[3]), let seconds = Double(arguments[4]),
    let file = fopen(arguments[1], "rb")
else {
    let usage = "usage: imgwarm-magick-probe FILE CODER THREADS SECONDS [TIME_LIMIT]\n"
    _ = write(2, usage, usage.utf8.count)
    exit(2)
}
let timeLimit = arguments.count > 5 ? Double(arguments[5]) ?? 30 : 30
var bytes: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 65536)
while true {
    let count = fread(&chunk, 1, chunk.count, file)
    if count <= 0 { break }
    bytes += chunk[..<count]
}
fclose(file)
Magick.start(limits: Magick.ResourceLimits())

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// One thread's work and results; everything a thread reads is here (top-level variables belong
/// to the main actor).
final class Box: @unchecked Sendable {
    let image: [UInt8]
    let coder: String
    let end: Double
    let timeLimit: Double
    var reads = 0
    var last = ""
    init(image: [UInt8], coder: String, end: Double, timeLimit: Double) {
        self.image = image
        self.coder = coder
        self.end = end
        self.timeLimit = timeLimit
    }
}
/// One thread: pings and decodes its image until its end time.
nonisolated func work(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
    let inspector = ImageInspector()
    repeat {
        for decode in [false, true] {
            let result = box.image.withUnsafeBytes {
                decode
                    ? inspector.decode($0, coder: box.coder, timeLimit: box.timeLimit)
                    : inspector.ping($0, coder: box.coder, timeLimit: box.timeLimit)
            }
            switch result {
            case .success(let properties): box.last = "\(properties.width)x\(properties.height)"
            case .failure(let error):
                print("read \(box.reads + 1) failed: \(error.message)")
                exit(1)
            }
            box.reads += 1
        }
    } while now() < box.end
    return nil
}

let end = now() + seconds
var workers: [pthread_t] = []
var boxes: [Box] = []
for _ in 0..<max(1, threads) {
    let box = Box(image: bytes, coder: arguments[2], end: end, timeLimit: timeLimit)
    boxes.append(box)
    var thread = pthread_t()
    let context = Unmanaged.passRetained(box).toOpaque()
    pthread_create(&thread, nil, work, context)
    workers.append(thread)
}
for thread in workers { pthread_join(thread, nil) }
print("\(boxes[0].last) \(boxes.reduce(0) { $0 + $1.reads })")
