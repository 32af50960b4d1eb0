import Foundation
import Localization

/// The strings of the pages as HTML: every translation is text, escaped here, so that no
/// translator's `<` or `&` can change a page; the values that fill its placeholders are
/// HTML the page built (escaped where they came from elsewhere).
extension Strings {
    /// The value of `key`, escaped, with each `{name}` replaced by the HTML in `values`.
    func html(_ key: String, _ values: [String: String] = [:]) -> String {
        Strings.fill(HTML.escape(text(key)), values)
    }

    /// The plural form of `key` for `count`, escaped, with `{count}` (unless `values` gives
    /// it) and the other placeholders replaced by HTML.
    func html(_ key: String, count: Int, _ values: [String: String] = [:]) -> String {
        var values = values
        if values["count"] == nil { values["count"] = String(count) }
        return Strings.fill(HTML.escape(text(key, count: count)), values)
    }

    /// The value of `key` with plain-text `values`, escaped as a whole: for attributes and
    /// text nodes.
    func escaped(_ key: String, _ values: [String: String] = [:]) -> String {
        HTML.escape(self(key, values))
    }
}
