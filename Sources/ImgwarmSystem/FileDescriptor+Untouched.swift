extension FileDescriptor {
    /// Opens the file `name` for reading so that reading it leaves its access time as it was:
    /// `O_NOATIME` where this process may (the file's owner), else an ordinary opening with the
    /// access time to put back after reading (`restoreAccessTime`), which moves only the change
    /// time. Never through a link; without `waiting`, a FIFO opens at once (`O_NONBLOCK`).
    public func openForReadingUntouched(_ name: String, waiting: Bool = true) throws(SystemError) -> (
        file: FileDescriptor, restoreAccessTime: Timestamp?
    ) {
        do {
            return (try openForReading(name, keepingAccessTime: true, waiting: waiting), nil)
        } catch  where error.isNotPermitted {
            let file = try openForReading(name, waiting: waiting)
            do {
                return (file, try file.status().accessed)
            } catch {
                file.close()
                throw error
            }
        }
    }
}
