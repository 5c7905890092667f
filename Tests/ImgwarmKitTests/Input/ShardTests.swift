import Testing

@testable import ImgwarmKit

/// `--shard K/N` (docs/usage.md, "Running on many machines"): which shard a key belongs to, and how K/N is read.
@Suite struct ShardTests {
    /// The shard is 1 + the first 8 bytes of MD5(key), big-endian, mod N: computed here from the
    /// hex digest, independently of the implementation's word layout.
    @Test(arguments: ["", "https://a.com/x.jpg", "key \u{e9}", "https://cdn.example.com/a.jpg?token=1"])
    func shardFollowsTheFirstEightBytesOfTheMD5(key: String) {
        let hex = MD5.digest(Array(key.utf8)).hex
        let first = UInt64(hex.prefix(16), radix: 16)!
        for count in [1, 2, 3, 7, 10, 1000, 65536] {
            #expect(Shard.of(key: key, count: count) == 1 + Int(first % UInt64(count)), "\(key) of \(count)")
        }
    }

    /// A known value: MD5("") = d41d8cd98f00b204…; 0xd41d8cd98f00b204 mod 10 = 8, so shard 9 of 10.
    @Test func knownValue() {
        #expect(Shard.of(key: "", count: 10) == 9)
        #expect(Shard.of(key: "", count: 1) == 1)
    }

    /// Every key has exactly one owner among the N shards, and keys spread over all of them.
    @Test func everyKeyHasOneOwner() throws {
        let shards = try (1...4).map { try Shard(index: $0, count: 4) }
        var perShard = [0, 0, 0, 0]
        for i in 0..<400 {
            let digest = MD5.digest(Array("https://a.com/\(i).jpg".utf8))
            let owners = shards.filter { $0.owns(digest) }
            #expect(owners.count == 1)
            perShard[owners[0].index - 1] += 1
        }
        #expect(perShard.allSatisfy { $0 > 50 }, "\(perShard)")
    }

    @Test(arguments: ["1/1", "2/8", "8/8", "65536/65536", "007/10"])
    func validShards(text: String) throws {
        let shard = try Shard(parsing: text)
        #expect("\(shard.index)/\(shard.count)" == shard.description)
        #expect(shard.index >= 1 && shard.index <= shard.count)
    }

    @Test(arguments: [
        "0/4", "5/4", "1/0", "1/65537", "-1/4", "+1/4", "1/4/2", "1", "a/b", "", "1/", "/4", " 1/4", "1.0/4",
    ])
    func invalidShardsSayWhyWithAnExample(text: String) {
        do {
            let shard = try Shard(parsing: text)
            Issue.record("\(text) parsed as \(shard)")
        } catch {
            #expect(error.message.contains("e.g. \(Setting.shard) 2/8"), "\(text): \(error.message)")
            #expect(error.message.contains("1 ≤ K ≤ N ≤ 65536"))
        }
    }
}
