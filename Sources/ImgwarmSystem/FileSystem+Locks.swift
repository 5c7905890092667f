extension FileSystem {
    /// A process holding a lock on a file, as the kernel lists it (`/proc/locks`).
    public struct LockHolder: Sendable, Equatable, CustomStringConvertible {
        public var pid: Int32
        /// Its command name (`/proc/PID/comm`), when it can be read.
        public var command: String?
        /// True for a write (exclusive) lock.
        public var exclusive: Bool

        public var description: String { "pid \(pid)" + (command.map { " (\($0))" } ?? "") }
    }

    /// The processes the kernel says hold a `flock` lock on the file at `path` (from `/proc/locks`,
    /// matched by device and inode); empty when none is known (or `/proc` says none). A process in
    /// another PID namespace is listed as pid 0 by the kernel and left out.
    public static func lockHolders(ofPath path: String) -> [LockHolder] {
        guard let status = try? FileSystem.status(ofPath: path),
            let table = procText("/proc/locks")
        else { return [] }
        let dev = status.device
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & 0xffff_f000)
        let minor = (dev & 0xff) | ((dev >> 12) & 0xffff_ff00)
        var holders: [LockHolder] = []
        for line in table.split(separator: "\n") {
            // "1: FLOCK  ADVISORY  WRITE 2222 08:02:1048611 0 EOF" (a "->" marks a waiter).
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", !fields.contains("->") else { continue }
            let identity = fields[5].split(separator: ":")
            guard identity.count == 3, UInt64(identity[0], radix: 16) == major, UInt64(identity[1], radix: 16) == minor,
                UInt64(identity[2]) == status.inode, let pid = Int32(fields[4]), pid > 0
            else { continue }
            let command = procText("/proc/\(pid)/comm")?.split(separator: "\n").first.map(String.init)
            holders.append(LockHolder(pid: pid, command: command, exclusive: fields[3] == "WRITE"))
        }
        return holders
    }

    /// A /proc file's text: they say their size is 0, so read until the end.
    private static func procText(_ path: String) -> String? {
        guard let file = try? FileDescriptor.openForReading(path) else { return nil }
        defer { file.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < 4 << 20, let count = try? file.read(into: &chunk), count > 0 {
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
