import Foundation
import Yams

/// Walks a YAML document with the key path in hand, so every error names its key. A
/// mapping's unknown keys are errors: a typo must not silently fall back to a default.
struct YAMLReader {
    let node: Node?
    let path: String

    init(node: Node?, path: String) {
        self.node = node
        self.path = path
    }

    /// Parses a document.
    static func parse(_ text: String, file: String) throws(ConfigurationError) -> YAMLReader {
        do {
            return YAMLReader(node: try Yams.compose(yaml: text), path: "")
        } catch {
            throw ConfigurationError(key: file, "is not valid YAML: \(error)")
        }
    }

    var isPresent: Bool {
        guard let node else { return false }
        if case .scalar(let scalar) = node, scalar.tag == .implicit, ["", "~", "null"].contains(scalar.string) { return false }
        return true
    }

    func child(_ key: String) -> YAMLReader {
        YAMLReader(node: node?.mapping?[key], path: path.isEmpty ? key : "\(path).\(key)")
    }

    /// Checks that a mapping has no keys besides `allowed`.
    func requireKeys(_ allowed: [String]) throws(ConfigurationError) {
        guard isPresent else { return }
        guard let mapping = node?.mapping else { throw error("must be a mapping of \(allowed.joined(separator: ", "))") }
        // Every unknown key at once: a file with two misspellings hears of both.
        var unknown: [ConfigurationError] = []
        for key in mapping.keys {
            guard let name = key.string, allowed.contains(name) else {
                let named = key.string.map { path.isEmpty ? $0 : "\(path).\($0)" } ?? path
                unknown.append(ConfigurationError(key: named, "is not a known key\(allowed.isEmpty ? "" : "; known keys here: \(allowed.joined(separator: ", "))")"))
                continue
            }
        }
        if !unknown.isEmpty { throw ConfigurationError(combining: unknown) }
    }

    func string() throws(ConfigurationError) -> String? {
        guard isPresent else { return nil }
        guard case .scalar(let scalar)? = node else { throw error("must be a single value") }
        return scalar.string
    }

    func int() throws(ConfigurationError) -> Int? {
        guard let text = try string() else { return nil }
        guard let value = Int(text) else { throw error("must be a whole number, found \"\(text.prefix(80))\"") }
        return value
    }

    func bool() throws(ConfigurationError) -> Bool? {
        guard let text = try string() else { return nil }
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error("must be true or false, found \"\(text.prefix(80))\"")
        }
    }

    /// A duration: seconds as a number, or a number with `s`, `m`, `h` or `d`.
    func duration() throws(ConfigurationError) -> TimeInterval? {
        guard let text = try string()?.trimmingCharacters(in: .whitespaces) else { return nil }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(text)
        var factor = 1.0
        if let last = text.last, let unit = units[last] {
            number = number.dropLast()
            factor = unit
        }
        guard let value = Double(number), value > 0, value.isFinite else {
            throw error("must be a positive duration such as 300, 5m, 1h or 30d, found \"\(text.prefix(80))\"")
        }
        return value * factor
    }

    func elements() throws(ConfigurationError) -> [YAMLReader]? {
        guard isPresent else { return nil }
        guard let sequence = node?.sequence else { throw error("must be a list") }
        return sequence.enumerated().map { index, element in YAMLReader(node: element, path: "\(path)[\(index)]") }
    }

    func strings() throws(ConfigurationError) -> [String]? {
        guard let elements = try elements() else { return nil }
        var values: [String] = []
        for element in elements {
            guard let value = try element.string() else { throw element.error("must not be empty") }
            values.append(value)
        }
        return values
    }

    /// Whether it is a mapping (rather than a scalar or a list).
    var isMapping: Bool { node?.mapping != nil }

    /// The keys of a mapping, in order.
    func keys() throws(ConfigurationError) -> [String] {
        guard isPresent else { return [] }
        guard let mapping = node?.mapping else { throw error("must be a mapping") }
        return mapping.keys.compactMap(\.string)
    }

    func error(_ message: String) -> ConfigurationError {
        let line = node?.mark.map { " (line \($0.line))" } ?? ""
        return ConfigurationError(key: path.isEmpty ? "configuration" : path, message + line)
    }
}
