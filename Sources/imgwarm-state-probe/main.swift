// A test helper, not a user command: opens the state database at a given moment and writes one
// row, so that several processes meet SQLite's locks at the same instant.
//
//   imgwarm-state-probe DATABASE START_NS KEY
//
// It waits (spinning, after the process has fully started) until CLOCK_REALTIME reaches START_NS,
// then opens DATABASE as imgwarm does, records KEY in one transaction and exits 0; a StateError
// is printed and exits 3. Processes launched separately start tens of milliseconds apart; the
// common start time is what makes their opens overlap.
import Glibc
import ImgwarmKit

let arguments = CommandLine.arguments
guard arguments.count == 4, let start = Int64(arguments[2]) else {
    let usage = "usage: imgwarm-state-probe DATABASE START_NS KEY\n"
    _ = write(2, usage, usage.utf8.count)
    exit(2)
}
func realtimeNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
while realtimeNanoseconds() < start {}
do {
    let store = try StateStore(path: arguments[1], busyTimeout: 10)
    try store.begin()
    try store.recordStored(
        StateStore.Record(
            key: arguments[3], fileName: SDFileName.forKey(arguments[3]), size: 1, format: nil, width: nil, height: nil,
            etag: nil, lastModified: nil, fetchedAt: 0, validatedAt: 0))
    try store.commit()
    exit(0)
} catch {
    let message = "\(error.description)\n"
    _ = write(2, message, message.utf8.count)
    exit(3)
}
