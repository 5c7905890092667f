import CCurl

/// Internationalized host names made ASCII (punycode, `xn--…`) by libidn2, the library libcurl
/// resolves such names with (`curl -V`: `IDN`). libidn2's own function is called, with UTF-8
/// input: libcurl's `CURLU_PUNYCODE` goes through `idn2_lookup_ul`, which reads the input in the
/// process's locale and fails under the C locale imgwarm runs in.
public enum IDNA {
    /// `label` (UTF-8, one or more labels) in ASCII by Unicode TR46 *transitional* processing,
    /// the mapping made compatible with IDNA2003, which Java's `IDN.toASCII` implements: case
    /// folded, compatibility forms and `。` mapped (`ＥＸＡＭＰＬＥ` → `example`), `ß` → `ss`,
    /// joiners removed; nil when libidn2 refuses it (a disallowed character, a label too long).
    public static func toASCII(_ label: String) -> String? {
        var output: UnsafeMutablePointer<UInt8>?
        let flags = Int32(IDN2_NFC_INPUT.rawValue | IDN2_TRANSITIONAL.rawValue)
        let status = label.withCString { input in
            input.withMemoryRebound(to: UInt8.self, capacity: label.utf8.count + 1) {
                idn2_lookup_u8($0, &output, flags)
            }
        }
        defer { idn2_free(output) }
        guard status == Int32(IDN2_OK.rawValue), let output else { return nil }
        return String(cString: output)
    }
}
