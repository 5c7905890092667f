// A test helper, not a user command: runs a program and writes its peak resident set size.
//
//   imgwarm-peak PROGRAM [ARGUMENT...]     (descriptor 3 open for writing)
//
// Linux counts into a process's `ru_maxrss` the high-water mark of the memory it replaced at
// `execve`: a program started straight from the test process (a vfork'd child shares the test
// process's memory until its exec) reports the test process's peak, hundreds of megabytes that
// grow as other tests run. Started from this small process instead, the program's own peak is
// what `wait4` reports. It is written to descriptor 3 in KiB; the exit status is the program's
// (a program ended by a signal ends this helper with the same signal).
import Glibc

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    let usage = "usage: imgwarm-peak PROGRAM [ARGUMENT...] (descriptor 3 receives the peak in KiB)\n"
    _ = write(2, usage, usage.utf8.count)
    exit(2)
}
_ = fcntl(3, F_SETFD, FD_CLOEXEC)
let argv = arguments.dropFirst().map { strdup($0) } + [nil]
var pid: pid_t = 0
let spawned = posix_spawn(&pid, arguments[1], nil, nil, argv, environ)
guard spawned == 0 else {
    let message = "imgwarm-peak: cannot start \(arguments[1]): \(String(cString: strerror(spawned)))\n"
    _ = write(2, message, message.utf8.count)
    exit(127)
}
var status: Int32 = 0
var usage = rusage()
while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
let peak = "\(usage.ru_maxrss)\n"
_ = write(3, peak, peak.utf8.count)
if status & 0x7F != 0 {
    signal(status & 0x7F, SIG_DFL)
    raise(status & 0x7F)
}
exit((status >> 8) & 0xFF)
