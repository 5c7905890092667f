/// Several formats' folders under one caches root (`--cache-format sdwebimage,glide`,
/// docs/usage.md, "Several formats"): each format's folder where its library keeps it, each with
/// its own private folder (lock, state, temporary files).
extension CacheLocation {
    /// The folders of `formats` (in their order, each once), resolved as `resolve` resolves one.
    ///
    /// With one format it is `resolve`'s answer. With several: a folder named directly
    /// (`diskCachePath`) is one format's, so it is refused; a namespace goes to each format that
    /// has one, refused only when none has; and two formats whose folders are one (Coil 2's and
    /// Fresco's `image_cache`), or one inside the other, are refused: they would share a lock, a
    /// state and their files.
    public static func resolve(
        cacheDir: String?, namespace: String?, diskCachePath: String?,
        environment: [String: String], formats: [any CacheFormat]
    ) throws(CacheLocationError) -> [CacheLocation] {
        var unique: [any CacheFormat] = []
        for format in formats where !unique.contains(where: { $0.name == format.name }) { unique.append(format) }
        guard unique.count > 1 else {
            return [
                try resolve(
                    cacheDir: cacheDir, namespace: namespace, diskCachePath: diskCachePath,
                    environment: environment, format: unique.first ?? CacheFormats.standard)
            ]
        }
        if diskCachePath != nil { throw .oneFolderForSeveralFormats(unique.map(\.name)) }
        if namespace != nil && !unique.contains(where: \.hasNamespace) {
            throw .noNamespaceInAny(unique.map(\.name))
        }
        var locations: [CacheLocation] = []
        for format in unique {
            let location = try resolve(
                cacheDir: cacheDir, namespace: format.hasNamespace ? namespace : nil, diskCachePath: nil,
                environment: environment, format: format)
            for other in locations {
                if let shared = CacheLocation.overlap(other, location) {
                    throw .sameFolder(other.format.name, format.name, shared)
                }
            }
            locations.append(location)
        }
        return locations
    }

    /// The folder two locations would share: one's cache folder or private folder is, or lies
    /// inside, the other's.
    static func overlap(_ a: CacheLocation, _ b: CacheLocation) -> String? {
        func within(_ path: String, _ folder: String) -> Bool { path == folder || path.hasPrefix(join(folder, "")) }
        for (x, y) in [(a, b), (b, a)] {
            for folder in [x.folder, x.privateFolder] where within(y.folder, folder) || within(y.privateFolder, folder)
            {
                return folder
            }
        }
        return nil
    }
}
