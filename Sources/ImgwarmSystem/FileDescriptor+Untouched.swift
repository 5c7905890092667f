extension FileDescriptor {
    /// Opens the file `name` for reading so that reading it leaves its access time as it was:
    /// `O_NOATIME` where this process may (the file's owner), else an ordinary opening with the
    /// access time to put back after reading (`restoreAccessTime`), which moves only the change
    /// time. Never through a link.
    public func openForReadingUntouched(_ name: String) throws(SystemError) -> (
        file: FileDescriptor, restoreAccessTime: Timestamp?
    ) {
        do {
            return (try openForReading(name, keepingAccessTime: true), nil)
        } catch  where error.isNotPermitted {
            let file = try openForReading(name)
            do {
                return (file, try file.status().accessed)
            } catch {
                file.close()
                throw error
            }
        }
    }
}
