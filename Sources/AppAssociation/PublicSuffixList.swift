import Foundation

/// The Public Suffix List (publicsuffix.org): which domain names are registrable. WebAuthn
/// uses it to decide whether an RP ID may serve an origin ("registrable domain suffix", HTML
/// §7.2.1.2), and browsers use it to count related-origin labels (WebAuthn L3 §5.11).
///
/// Rules are matched on lowercase ASCII labels. Internationalized rules are kept in their
/// Unicode form, so a punycode (`xn--`) host matches only the default rule; hosts that
/// Latchkey meets are ASCII in practice.
public struct PublicSuffixList: Sendable {
    private var rules: Set<String> = []
    private var wildcards: Set<String> = []
    private var exceptions: Set<String> = []

    /// Parses the list's text format: one rule per line, `//` comments, `*.` wildcards and
    /// `!` exceptions.
    public init(text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            let rule = line.prefix { !$0.isWhitespace }.lowercased()
            if rule.isEmpty || rule.hasPrefix("//") { continue }
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(rule)
            }
        }
    }

    /// The copy bundled with Latchkey.
    public static let bundled: PublicSuffixList = {
        guard let url = Bundle.module.url(forResource: "public_suffix_list", withExtension: "dat"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else {
            // Without the list only the default rule applies: every last label is a suffix.
            return PublicSuffixList(text: "")
        }
        return PublicSuffixList(text: text)
    }()

    /// The public suffix of a host, by the list's algorithm: the longest matching rule, an
    /// exception rule removing one label, and `*` (the last label) when nothing matches.
    /// - Returns: `nil` for an IP address or an empty host.
    public func publicSuffix(of host: String) -> String? {
        let labels = Self.labels(of: host)
        guard !labels.isEmpty, !Self.isIPAddress(host) else { return nil }
        var longest = 1
        for count in 1...labels.count {
            let candidate = labels.suffix(count).joined(separator: ".")
            if exceptions.contains(candidate) {
                return labels.suffix(count - 1).joined(separator: ".")
            }
            if rules.contains(candidate) { longest = max(longest, count) }
            if count > 1, wildcards.contains(labels.suffix(count - 1).joined(separator: ".")) {
                longest = max(longest, count)
            }
        }
        return labels.suffix(longest).joined(separator: ".")
    }

    /// Whether a name is exactly a suffix that an explicit rule of the list names (such as
    /// `com`, `co.uk` or `github.io`). The implicit `*` rule is not counted, so `localhost`
    /// and other single-label names are not listed suffixes.
    public func isListedPublicSuffix(_ name: String) -> Bool {
        let labels = Self.labels(of: name)
        guard !labels.isEmpty else { return false }
        let joined = labels.joined(separator: ".")
        if exceptions.contains(joined) { return false }
        if rules.contains(joined) { return true }
        return labels.count > 1 && wildcards.contains(labels.dropFirst().joined(separator: "."))
    }

    /// The registrable domain (eTLD+1) of a host: its public suffix and one more label.
    /// - Returns: `nil` for an IP address, or when the host is itself a public suffix.
    public func registrableDomain(of host: String) -> String? {
        guard let suffix = publicSuffix(of: host) else { return nil }
        let labels = Self.labels(of: host)
        let suffixCount = suffix.split(separator: ".").count
        guard labels.count > suffixCount else { return nil }
        return labels.suffix(suffixCount + 1).joined(separator: ".")
    }

    /// The registrable origin label of a host: its registrable domain without the public
    /// suffix, such as `example` for `shop.example.co.uk` (WebAuthn L3 §5.11.1).
    public func registrableLabel(of host: String) -> String? {
        guard let domain = registrableDomain(of: host) else { return nil }
        return domain.split(separator: ".").first.map(String.init)
    }

    /// Whether `suffix` is a registrable domain suffix of, or equal to, `host` (HTML §7.2.1.2):
    /// the test a browser applies before letting an origin on `host` use RP ID `suffix`.
    public func isRegistrableDomainSuffix(_ suffix: String, of host: String) -> Bool {
        let suffix = suffix.lowercased()
        let host = host.lowercased()
        if suffix == host { return true }
        if Self.isIPAddress(suffix) || Self.isIPAddress(host) { return false }
        guard host.hasSuffix("." + suffix) else { return false }
        // The suffix must be more than a public suffix, and must not sit inside the host's
        // public suffix (as `uk` does inside `example.co.uk`).
        guard let hostSuffix = publicSuffix(of: host), publicSuffix(of: suffix) != suffix else { return false }
        return !(hostSuffix == suffix || hostSuffix.hasSuffix("." + suffix))
    }

    /// Whether two hosts are on the same site: the same registrable domain, or the same
    /// host when either has none (`localhost`, IP addresses).
    public func isSameSite(_ first: String, _ second: String) -> Bool {
        let first = first.lowercased()
        let second = second.lowercased()
        guard let a = registrableDomain(of: first), let b = registrableDomain(of: second) else { return first == second }
        return a == b
    }

    private static func labels(of host: String) -> [String] {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return labels.contains(where: \.isEmpty) ? [] : labels
    }

    /// Whether a host is an IPv4 dotted quad or an IPv6 literal rather than a domain name.
    public static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
    }
}
