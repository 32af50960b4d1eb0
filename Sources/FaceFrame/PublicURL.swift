/// The public base URL as faces write it into links.
package enum PublicURL {
    /// The URL without a trailing slash.
    package static func trimmed(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
}
