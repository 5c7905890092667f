import Curl
import Testing

@Suite struct CurlLibraryTests {
    @Test func libraryIsLinkedWithHTTP2() {
        #expect(Curl.version.split(separator: ".").count == 3)
        #expect(Curl.supportsHTTP2)
    }
}
