import Testing

@testable import ImgwarmKit

/// `ProcessedKeyForm`: the keys SDWebImage and Kingfisher derive for processed images, and the
/// search finding the form and the rule under it.
struct ProcessedKeyFormTests {
    static let flip = ProcessedKeyForm(library: .sdWebImage, identifier: "SDImageFlippingTransformer(1,0)")

    /// SDWebImage's own cases for `SDTransformedKeyForKey` (its SDImageTransformerTests).
    @Test(arguments: [
        ("image.png", "image-SDImageFlippingTransformer(1,0).png"),
        ("image", "image-SDImageFlippingTransformer(1,0)"),
        (".image", ".image-SDImageFlippingTransformer(1,0)"),
        ("image.", "image.-SDImageFlippingTransformer(1,0)"),
        ("Test/image.png", "Test/image-SDImageFlippingTransformer(1,0).png"),
        ("http://foo/image.png", "http://foo/image-SDImageFlippingTransformer(1,0).png"),
        ("http://foo/image", "http://foo/image-SDImageFlippingTransformer(1,0)"),
        ("http://foo/.image", "http://foo/.image-SDImageFlippingTransformer(1,0)"),
        ("http://foo/image.png?foo=bar#mark", "http://foo/image-SDImageFlippingTransformer(1,0).png?foo=bar#mark"),
        (
            "ftp://root:password@foo.com/image.png",
            "ftp://root:password@foo.com/image-SDImageFlippingTransformer(1,0).png"
        ),
    ])
    func sdWebImageTransformedKey(key: String, expected: String) {
        #expect(Self.flip.key(key) == expected)
    }

    /// A thumbnail's braces are escaped in a URL's path (`NSURLComponents.path`), not after a key
    /// without an extension; Kingfisher appends `@` and the identifier.
    @Test func thumbnailAndProcessorKeys() {
        let thumbnail = ProcessedKeyForm(library: .sdWebImage, identifier: "Thumbnail({100.000000,100.000000},1)")
        #expect(
            thumbnail.key("https://h/a/b.jpg?x=1")
                == "https://h/a/b-Thumbnail(%7B100.000000,100.000000%7D,1).jpg?x=1")
        #expect(thumbnail.key("https://h/a/b") == "https://h/a/b-Thumbnail({100.000000,100.000000},1)")
        let downsampling = ProcessedKeyForm(
            library: .kingfisher, identifier: "com.onevcat.Kingfisher.DownsamplingImageProcessor((100.0, 100.0))")
        #expect(
            downsampling.key("https://h/a.jpg")
                == "https://h/a.jpg@com.onevcat.Kingfisher.DownsamplingImageProcessor((100.0, 100.0))")
    }

    /// The built-in list holds the forms of the sizes the URLs ask for, at the three scales.
    @Test func builtInListTakesTheListsSizes() {
        let sizes = ProcessedKeyForm.sizesSeen(in: ["https://h/a.jpg?w=333&h=222&v=2", "https://h/b.jpg?w=333"])
        #expect(sizes == [333, 222])
        let identifiers = Set(ProcessedKeyForm.builtIn(sizes: sizes).map(\.identifier))
        #expect(identifiers.contains("com.onevcat.Kingfisher.DownsamplingImageProcessor((666.0, 444.0))"))
        #expect(identifiers.contains("Thumbnail({999.000000,999.000000},0)"))
        #expect(identifiers.contains("Thumbnail({1024.000000,768.000000},1)"))
        #expect(identifiers.contains("Thumbnail({333.000000,333.000000},1)"))
    }

    /// Keys in a processed form only: the search finds the form, and the rule under it.
    @Test func searchFindsTheFormAndItsRule() throws {
        let urls = KeyRuleSearchTests.urls()
        let chain = try KeyFilterChain(specs: ["drop-params:token,expires"])
        let form = ProcessedKeyForm(
            library: .kingfisher, identifier: "com.onevcat.Kingfisher.RoundCornerImageProcessor(20.0)")
        let keys = Set(urls.dropFirst(10).map { form.key(chain.key(for: $0)) })
        var search = KeyRuleSearch(urls: urls) { keys.contains($0) }
        search.forms = ProcessedKeyForm.builtIn()
        let result = search.run()
        #expect(result.best.hits == 0)
        #expect(result.processed.map(\.form) == [form])
        #expect(result.processed.first?.best == KeyRuleSearch.Score(filters: ["drop-params:token,expires"], hits: 190))
        #expect(
            result.unexplained.filter { $0.nearest == .processed(form, ["drop-params:token,expires"]) }.count == 190)
    }
}
