import Foundation
import ImgwarmKit
import TestSupport
import Testing

@testable import imgwarm

/// The command line words the engine's verdict on an option a format does not take
/// (`CleanOptions`, `PrefetchOptions`) and exits 2: for every registered format and every
/// format-dependent option, the binary refuses exactly what the engine refuses, in the words
/// imgwarm has always used.
@Suite(.startsTheBinary) struct OptionApplicabilityTests {
    static let names = CacheFormats.names

    /// Each clean option alone, on every format: refused (exit 2, `<flag> does not apply to
    /// <format>`) where the engine refuses it, run (a dry run of an absent folder) elsewhere.
    @Test(arguments: names) func cleanRefusesWhatTheEngineRefuses(name: String) throws {
        let temp = try TemporaryFolder()
        let format = try #require(CacheFormats.named(name))
        let given: [(Setting, [String])] = [
            (.maxAge, ["--max-age", "1d"]), (.maxSize, ["--max-size", "1M"]),
            (.expireType, ["--expire-type", "change"]),
        ]
        for (setting, option) in given {
            let run = try CLI.run(
                ["clean", "--cache-format", name, "--disk-cache-path", temp.path("absent"), "--dry-run"] + option,
                home: temp.path)
            if CleanOptions.format(format, takes: setting) {
                #expect(run.status == 0, "\(name) \(option): \(run.stderrText)")
            } else {
                #expect(run.status == 2, "\(name) \(option)")
                #expect(run.stderrText.contains("\(option[0]) does not apply to \(name): "), "\(run.stderrText)")
            }
        }
    }

    /// Each prefetch option alone, on every format: refused (exit 2) where the engine refuses it.
    @Test(arguments: names) func prefetchRefusesWhatTheEngineRefuses(name: String) throws {
        let temp = try TemporaryFolder()
        let format = try #require(CacheFormats.named(name))
        let list = try temp.write("empty.txt", Data())
        let given: [(Setting, [String], String)] = [
            (.maxSize, ["--max-size", "1M"], "--max-size on prefetch applies to the caches the app trims"),
            (.expiresIn, ["--expires-in", "1h"], "--expires-in applies to the caches whose files carry"),
        ]
        for (setting, option, refusal) in given {
            let run = try CLI.run(
                ["prefetch", "--cache-format", name, "--disk-cache-path", temp.path("c"), "--dry-run", "--quiet"]
                    + option + [list], home: temp.path)
            if PrefetchOptions.format(format, takes: setting) {
                #expect(run.status == 0, "\(name) \(option): \(run.stderrText)")
            } else {
                #expect(run.status == 2, "\(name) \(option)")
                #expect(run.stderrText.contains(refusal), "\(run.stderrText)")
                #expect(run.stderrText.contains("not to \(name)"), "\(run.stderrText)")
            }
        }
    }

    /// The words of each refusal, as imgwarm printed them before the engine decided.
    @Test func theMessagesAreTheCommandLinesWords() {
        let nuke = OptionNotApplicable(setting: .maxAge, format: "nuke", appliesTo: ["sdwebimage"])
        #expect(
            Clean.message(.notApplicable(nuke, expiry: .none))
                == "--max-age does not apply to nuke: it expires nothing by age; clean only trims it to --max-size")
        let kingfisher = OptionNotApplicable(setting: .expireType, format: "kingfisher", appliesTo: ["sdwebimage"])
        #expect(
            Clean.message(.notApplicable(kingfisher, expiry: .stamped))
                == "--expire-type does not apply to kingfisher: its files carry their own expiry date (the modification time), and clean removes those past it"
        )
        let flutter = OptionNotApplicable(setting: .maxSize, format: "flutter", appliesTo: [])
        #expect(
            Clean.message(.notApplicable(flutter, expiry: .index("its index decides")))
                == "--max-size does not apply to flutter: its index decides")
        #expect(
            Clean.message(.removeAllWithLimit)
                == "--all empties the folder: drop --max-age and --max-size, or drop --all")
        let sized = OptionNotApplicable(setting: .maxSize, format: "sdwebimage", appliesTo: ["nuke", "glide"])
        #expect(
            Prefetch.message(.notApplicable(sized))
                == "--max-size on prefetch applies to the caches the app trims to a size limit on its own (nuke, glide), not to sdwebimage; imgwarm clean --max-size trims a cache"
        )
        let fresh = OptionNotApplicable(setting: .expiresIn, format: "nuke", appliesTo: ["kingfisher", "kingfisher7"])
        #expect(
            Prefetch.message(.notApplicable(fresh))
                == "--expires-in applies to the caches whose files carry their expiry date (kingfisher, kingfisher7), not to nuke"
        )
        #expect(
            Prefetch.message(.expiryNotPositive)
                == "--expires-in must be a positive age such as 7d or 12h (Kingfisher would not store the file)")
    }
}
