import Testing

@testable import ImgwarmKit

@Suite struct FingerprintSetTests {
    /// Agrees with `Set` on digests of real keys, across several growths, with repeats.
    @Test func agreesWithASetOfTheSameDigests() {
        var compact = FingerprintSet()
        var reference = Set<UInt64>()
        for index in 0..<50_000 {
            // Every third key repeats an earlier one.
            let key = "https://cdn.example.com/\(index % 3 == 2 ? index / 2 : index).jpg"
            let digest = SDFileName.hash(of: key)
            let inserted = compact.insert(digest)
            #expect(inserted == reference.insert(FingerprintSet.fingerprint(digest)).inserted)
            if !inserted && index % 3 != 2 { Issue.record("a new key was taken for a duplicate: \(key)") }
        }
        #expect(compact.count == reference.count)
        for index in stride(from: 0, to: 60_000, by: 7) {
            let digest = SDFileName.hash(of: "https://cdn.example.com/\(index).jpg")
            #expect(compact.contains(digest) == reference.contains(FingerprintSet.fingerprint(digest)))
        }
    }

    /// The empty-slot marker (0) is still a fingerprint like any other, and so are values that
    /// land in the last slot and wrap around.
    @Test func zeroAndWrappingFingerprints() {
        var set = FingerprintSet()
        let zero = MD5.Digest(a: 0, b: 0, c: 1, d: 2)
        #expect(!set.contains(zero))
        let first = set.insert(zero)
        let again = set.insert(zero)
        #expect(first && !again)
        #expect(set.contains(zero))
        // Fingerprints that all start in slot 15 of the first table.
        let crowded = (0..<10).map { MD5.Digest(a: 15 | UInt32($0) << 8, b: 0, c: 0, d: 0) }
        for digest in crowded {
            let inserted = set.insert(digest)
            #expect(inserted)
        }
        for digest in crowded { #expect(set.contains(digest)) }
        #expect(!set.contains(MD5.Digest(a: 15 | 99 << 8, b: 0, c: 0, d: 0)))
        #expect(set.count == 11)
        // Only the first 64 bits count.
        #expect(set.contains(MD5.Digest(a: 0, b: 0, c: 9, d: 9)))
    }
}
