import ArgumentParser
import ImgwarmKit

/// Transforms for `@Option(transform:)` so a bad value's message shows a valid example.
enum Parse {
    static func size(_ text: String) throws -> UInt64 {
        do { return try Quantities.parseSize(text) } catch { throw ValidationError(error.description) }
    }

    static func age(_ text: String) throws -> Double? {
        do { return try Quantities.parseAge(text) } catch { throw ValidationError(error.description) }
    }

    static func expireType(_ text: String) throws -> ExpireType {
        guard let type = ExpireType(rawValue: text.lowercased()) else {
            throw ValidationError("invalid expire type '\(text)': use access, modification, creation or change")
        }
        return type
    }
}
