import Foundation

/// A JSON Schema (2020-12) validator for the subset imgwarm's schemas use: `type`, `const`,
/// `enum`, `properties`, `required`, `additionalProperties`, `propertyNames`, `items`,
/// `minimum`, `pattern`, `oneOf`, and local `$ref`s into `$defs`.
///
/// It exists so the tests can check real reports against `docs/*.schema.json` without a Python
/// or network dependency. Unknown keywords fail loudly rather than pass silently.
public struct JSONSchema {
    let root: [String: Any]

    public init(contentsOf url: URL) throws {
        guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        root = object
    }

    /// Every violation, as `path: message`; empty when the document is valid.
    public func validate(_ document: Any) -> [String] {
        var errors: [String] = []
        check(document, root, "$", &errors)
        return errors
    }

    private static let known: Set<String> = [
        "$schema", "$id", "$defs", "title", "description", "type", "const", "enum", "properties", "required",
        "additionalProperties", "propertyNames", "items", "minimum", "pattern", "oneOf", "$ref",
    ]

    private func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let ref = schema["$ref"] as? String, ref.hasPrefix("#/$defs/") else { return schema }
        let name = String(ref.dropFirst("#/$defs/".count))
        return ((root["$defs"] as? [String: Any])?[name] as? [String: Any]) ?? [:]
    }

    private func check(_ value: Any, _ rawSchema: [String: Any], _ path: String, _ errors: inout [String]) {
        let schema = resolve(rawSchema)
        for key in schema.keys where !JSONSchema.known.contains(key) {
            errors.append("\(path): schema keyword '\(key)' is not supported by this validator")
        }
        if let type = schema["type"] {
            let types = (type as? [String]) ?? [type as? String ?? ""]
            if !types.contains(where: { JSONSchema.matches(value, $0) }) {
                errors.append(
                    "\(path): expected \(types.joined(separator: " or ")), found \(JSONSchema.typeName(value))")
                return
            }
        }
        if let constant = schema["const"], !JSONSchema.equal(value, constant) {
            errors.append("\(path): expected the constant \(constant)")
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { JSONSchema.equal(value, $0) }) {
            errors.append("\(path): \(value) is not one of \(options)")
        }
        if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, let number = value as? NSNumber,
            !JSONSchema.isBool(value), number.doubleValue < minimum
        {
            errors.append("\(path): \(number) is below the minimum \(minimum)")
        }
        if let pattern = schema["pattern"] as? String, let text = value as? String,
            text.range(of: pattern, options: .regularExpression) == nil
        {
            errors.append("\(path): '\(text)' does not match \(pattern)")
        }
        if let choices = schema["oneOf"] as? [[String: Any]] {
            let passing = choices.filter { choice in
                var sub: [String] = []
                check(value, choice, path, &sub)
                return sub.isEmpty
            }
            if passing.count != 1 {
                errors.append("\(path): matches \(passing.count) of the oneOf choices, not exactly one")
            }
        }
        if let object = value as? [String: Any], !(value is [Any]) {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                errors.append("\(path): missing required '\(name)'")
            }
            for (name, member) in object {
                if let names = schema["propertyNames"] as? [String: Any] {
                    check(name, names, "\(path).\(name) (name)", &errors)
                }
                if let sub = properties[name] as? [String: Any] {
                    check(member, sub, "\(path).\(name)", &errors)
                } else if let additional = schema["additionalProperties"] {
                    if let allowed = additional as? Bool, !allowed, schema["properties"] != nil {
                        errors.append("\(path): unexpected property '\(name)'")
                    } else if let sub = additional as? [String: Any] {
                        check(member, sub, "\(path).\(name)", &errors)
                    }
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() { check(item, items, "\(path)[\(index)]", &errors) }
        }
    }

    static func isBool(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(describing: type(of: number)).contains("Boolean") || String(cString: number.objCType) == "c"
    }

    static func matches(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "null": return value is NSNull
        case "boolean": return isBool(value)
        case "integer":
            guard let number = value as? NSNumber, !isBool(value) else { return false }
            return number.doubleValue.rounded() == number.doubleValue
        case "number": return value is NSNumber && !isBool(value)
        case "string": return value is String
        case "array": return value is [Any]
        case "object": return value is [String: Any]
        default: return false
        }
    }

    static func typeName(_ value: Any) -> String {
        for type in ["null", "boolean", "integer", "number", "string", "array", "object"] where matches(value, type) {
            return type
        }
        return "unknown"
    }

    static func equal(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case (is NSNull, is NSNull): return true
        case (let x as String, let y as String): return x == y
        case (let x as NSNumber, let y as NSNumber): return isBool(x) == isBool(y) && x == y
        default: return false
        }
    }
}

extension JSONSchema {
    /// The schema of one cache's document in the schema `root`: `root` itself, or for a report
    /// that is one of several documents (`oneOf`: one format's, several formats'), its
    /// `$defs.document`; and its `cacheFormat` property, a local `$ref` followed (nil: none).
    public static func oneCacheDocument(_ root: [String: Any]) -> (
        schema: [String: Any], cacheFormat: [String: Any]?
    ) {
        let defs = root["$defs"] as? [String: Any]
        let schema = root["oneOf"] == nil ? root : defs?["document"] as? [String: Any] ?? [:]
        var format = (schema["properties"] as? [String: Any])?["cacheFormat"] as? [String: Any]
        if let ref = format?["$ref"] as? String, ref.hasPrefix("#/$defs/") {
            format = defs?[String(ref.dropFirst("#/$defs/".count))] as? [String: Any]
        }
        return (schema, format)
    }
}
