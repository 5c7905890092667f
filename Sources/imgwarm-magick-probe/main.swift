// A test helper, not a user command: checks that ImageMagick's time limit bounds each read and
// does not end a process that lives longer than the limit.
//
//   imgwarm-magick-probe FILE CODER LIMIT_SECONDS PAUSE_SECONDS
//
// It starts ImageMagick with a time limit of LIMIT_SECONDS, decodes FILE with CODER, sleeps
// PAUSE_SECONDS, decodes it again, prints "WIDTHxHEIGHT" and exits 0; a failed read prints
// ImageMagick's message and exits 1. ImageMagick itself ends the process (a fatal "time limit
// exceeded") when its count is not restarted before a read.
import Glibc
import Magick

let arguments = CommandLine.arguments
guard arguments.count == 5, let limit = UInt64(arguments[3]), let pause = UInt32(arguments[4]),
    let file = fopen(arguments[1], "rb")
else {
    let usage = "usage: imgwarm-magick-probe FILE CODER LIMIT_SECONDS PAUSE_SECONDS\n"
    _ = write(2, usage, usage.utf8.count)
    exit(2)
}
var bytes: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 65536)
while true {
    let count = fread(&chunk, 1, chunk.count, file)
    if count <= 0 { break }
    bytes += chunk[..<count]
}
fclose(file)
var limits = Magick.ResourceLimits()
limits.time = limit
Magick.start(limits: limits)
let inspector = ImageInspector()
var last = ""
for round in 0..<2 {
    if round == 1 { sleep(pause) }
    switch bytes.withUnsafeBytes({ inspector.decode($0, coder: arguments[2]) }) {
    case .success(let properties): last = "\(properties.width)x\(properties.height)"
    case .failure(let error):
        print("read \(round + 1) failed: \(error.message)")
        exit(1)
    }
}
print(last)
