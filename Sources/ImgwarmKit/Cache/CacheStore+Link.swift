import ImgwarmSystem

extension CacheStore {
    /// Stores entry `name` as another name of `file`, a file this run stored in another format's
    /// folder (several formats in one run; docs/usage.md, "Several formats"): a hard link, no
    /// second copy of the bytes. Only for formats whose time rules agree (`FormatFanOut`): a link
    /// has one set of times. As `store`: the companions first, then the link under a temporary
    /// name in the private folder renamed into place (`publish`), then the index records it. The
    /// descriptor is linked, not a path: the file linked is the one opened. A link that cannot be
    /// made (another file system, a limit of links) throws `StoreFailure` before anything is
    /// published, and the caller writes the bytes instead.
    public func store(
        linking file: FileDescriptor, as name: String, response: CacheIndexResponse? = nil,
        publish: (() throws(StoreFailure) -> Void) throws(StoreFailure) -> Void = { try $0() }
    ) throws(StoreFailure) {
        try makeParentFolders(of: name)
        let temporary = temporaryName()
        do throws(SystemError) {
            try temporaryDescriptor.link(anonymous: file, as: temporary)
        } catch {
            throw StoreFailure(error, step: "link the file")
        }
        do throws(StoreFailure) {
            try storeCompanions(of: name, response: response)
            try publish { () throws(StoreFailure) in try renameIntoPlace(temporaryName: temporary, name: name) }
        } catch {
            discard(temporaryName: temporary)
            throw error
        }
        recordStored(name, response: response)
    }
}
