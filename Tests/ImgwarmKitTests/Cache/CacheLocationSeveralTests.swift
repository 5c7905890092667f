import Testing

@testable import ImgwarmKit

/// `CacheLocation.resolve(formats:)`: several formats' folders under one caches root.
@Suite struct CacheLocationSeveralTests {
    static let root = "/srv/caches"

    static func resolve(_ formats: [any CacheFormat], namespace: String? = nil) throws(CacheLocationError)
        -> [CacheLocation]
    {
        try CacheLocation.resolve(
            cacheDir: root, namespace: namespace, diskCachePath: nil, environment: [:], formats: formats)
    }

    /// Every pair of the registry: refused exactly when the two folders are one or one lies in
    /// the other (computed here from each format's own folder), else each folder as it alone gives.
    @Test func everyPairIsRefusedOnlyWhenItsFoldersMeet() throws {
        for a in CacheFormats.all {
            for b in CacheFormats.all where a.name != b.name {
                let x = a.folder(cachesRoot: Self.root, namespace: CacheLocation.defaultNamespace)
                let y = b.folder(cachesRoot: Self.root, namespace: CacheLocation.defaultNamespace)
                let meet = x == y || x.hasPrefix(y + "/") || y.hasPrefix(x + "/")
                do {
                    let locations = try Self.resolve([a, b])
                    #expect(!meet, "\(a.name), \(b.name): \(x) and \(y) were accepted")
                    #expect(locations.map(\.folder) == [x, y])
                    #expect(locations.map(\.format.name) == [a.name, b.name])
                } catch {
                    #expect(meet, "\(a.name), \(b.name) refused: \(error)")
                    #expect(error == .sameFolder(a.name, b.name, x == y ? x : (x.count < y.count ? x : y)), "\(error)")
                }
            }
        }
    }

    /// One format: exactly `resolve(format:)`; a format given twice counts once.
    @Test func oneFormatIsTodaysLocation() throws {
        let glide = CacheFormats.named("glide")!
        let one = try Self.resolve([glide, glide])
        let alone = try CacheLocation.resolve(
            cacheDir: Self.root, namespace: nil, diskCachePath: nil, environment: [:], format: glide)
        #expect(one == [alone])
        #expect(throws: CacheLocationError.noNamespace("glide")) { try Self.resolve([glide], namespace: "x") }
    }

    @Test func severalTakeNoDiskCachePath() {
        let formats = ["sdwebimage", "nuke"].compactMap(CacheFormats.named)
        #expect(throws: CacheLocationError.oneFolderForSeveralFormats(["sdwebimage", "nuke"])) {
            try CacheLocation.resolve(
                cacheDir: nil, namespace: nil, diskCachePath: "/x", environment: [:], formats: formats)
        }
    }

    /// A namespace goes to the formats that have one; refused only when none has.
    @Test func aNamespaceGoesWhereItMeansSomething() throws {
        let formats = ["glide", "sdwebimage", "kingfisher"].compactMap(CacheFormats.named)
        let locations = try Self.resolve(formats, namespace: "avatars")
        #expect(
            locations.map(\.folder) == [
                Self.root + "/image_manager_disk_cache", Self.root + "/com.hackemist.SDImageCache/avatars",
                Self.root + "/com.onevcat.Kingfisher.ImageCache.avatars",
            ])
        let fixed = ["glide", "coil"].compactMap(CacheFormats.named)
        #expect(throws: CacheLocationError.noNamespaceInAny(["glide", "coil"])) {
            try Self.resolve(fixed, namespace: "avatars")
        }
        #expect(throws: CacheLocationError.invalidNamespace("a/b")) { try Self.resolve(formats, namespace: "a/b") }
    }
}
