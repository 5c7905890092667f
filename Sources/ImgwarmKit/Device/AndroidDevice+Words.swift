/// What `push` and `pull` accept as the words they hand to adb and the device (docs/hardening.md,
/// "The device boundary"): each option value is checked by its own grammar before adb runs, so a
/// value that could mean something to the device's shell never gets there (the first wall; the
/// second is `AndroidDevice.quote`).
extension AndroidDevice {
    /// Why `text` is no Android package name, nil when it is one: two or more segments separated
    /// by dots, each a letter followed by letters, digits or `_` (the `applicationId` rule of
    /// Android's build tools; `pm` refuses anything else), 255 characters at most.
    public static func packageProblem(_ text: String) -> String? {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 255, segments.count >= 2 else {
            return "an Android package name has two or more segments separated by dots, e.g. com.example.app"
        }
        for segment in segments {
            guard let first = segment.utf8.first, isLetter(first) else {
                return "each segment of an Android package name starts with a letter (a-z, A-Z)"
            }
            guard segment.utf8.allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }) else {
                return "an Android package name holds only letters, digits, '_' and '.'"
            }
        }
        return nil
    }

    /// Why `text` is no Android user id, nil when it is one: a decimal number from 0 to 21473 (a
    /// user's apps run as uid user × 100000 + app id, which must fit in 31 bits).
    public static func userProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy(isDigit), let number = Int(text),
            number <= 21473
        else { return "an Android user is a number from 0 to 21473 (0 is the device's owner)" }
        return nil
    }

    /// Why `text` is no device serial, nil when it is one: printable ASCII without spaces (what
    /// `adb devices` lists: `emulator-5554`, `192.168.1.20:5555`), not starting with `-` (adb
    /// would read it as an option), 255 characters at most.
    public static func serialProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 255,
            text.utf8.allSatisfy({ (0x21...0x7e).contains($0) }), !text.hasPrefix("-")
        else { return "a serial is one word as adb devices lists it, e.g. emulator-5554, not starting with '-'" }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
