public import AppAssociation
public import Foundation

/// Checks a deployed domain's association files against what iOS, Android and browsers
/// require, and, given a configuration, against the apps it names.
public struct Doctor: Sendable {
    /// A URL the doctor cannot work with.
    public struct UsageError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    let fetcher: any DocumentFetching
    let suffixes: PublicSuffixList

    /// - Parameters:
    ///   - fetcher: How documents are fetched; redirects must be reported, not followed.
    ///   - suffixes: The public suffix list, for RP ID and same-site rules.
    public init(fetcher: any DocumentFetching = URLSessionFetcher(), suffixes: PublicSuffixList = .bundled) {
        self.fetcher = fetcher
        self.suffixes = suffixes
    }

    /// Examines a domain.
    /// - Parameters:
    ///   - url: The deployment, such as `https://example.com`; only its origin is used.
    ///   - settings: The apps and origins the deployment should serve, from the
    ///     configuration; `nil` checks the files' requirements alone.
    ///   - expectationsSource: Where `settings` came from, for the report's heading.
    ///   - allowHTTP: Accept `http:` for local testing.
    public func examine(url: URL, expecting settings: AssociationSettings?, expectationsSource: String? = nil, allowHTTP: Bool = false) async throws(UsageError) -> DoctorReport {
        let site = try Site(url)
        let relyingPartyID = settings?.relyingPartyID ?? site.host
        var domain = DoctorSection(title: "Domain", url: nil)
        checkScheme(site, allowHTTP: allowHTTP, in: &domain)
        checkRelyingPartyID(relyingPartyID, site: site, in: &domain)
        if settings == nil {
            domain.note("no configuration given: the RP ID is taken to be \(site.host); pass --config to check the files against your apps")
        }
        // Platforms fetch the files from the RP ID's own host, whatever host serves the API.
        let base = relyingPartyID == site.host ? site.origin : URL(string: "\(site.scheme)://\(relyingPartyID)")!
        if relyingPartyID != site.host {
            domain.note("apps, browsers and password managers fetch these files from \(base.absoluteString), the RP ID's host, so that is what is checked")
        }

        let run = DoctorRun(fetcher: fetcher, suffixes: suffixes, settings: settings, relyingPartyID: relyingPartyID, base: base, site: site, allowHTTP: allowHTTP)
        var sections = [domain]
        sections.append(await run.checkAppleAppSiteAssociation())
        sections.append(await run.checkAssetLinks())
        sections.append(await run.checkPasskeyEndpoints())
        sections.append(await run.checkRelatedOrigins())
        return DoctorReport(
            target: url.absoluteString,
            relyingPartyID: relyingPartyID,
            expectationsSource: expectationsSource.map { "expectations from \($0)" } ?? "no configuration",
            sections: sections
        )
    }

    private func checkScheme(_ site: Site, allowHTTP: Bool, in section: inout DoctorSection) {
        if site.scheme == "https" {
            section.add(.pass("domain.https", "uses HTTPS"))
        } else if allowHTTP {
            section.add(.pass("domain.https", "uses HTTP, allowed for local testing by --allow-http"))
        } else {
            section.add(.fail(
                "domain.https", "uses HTTP",
                fix: "iOS and Android fetch association files only over HTTPS with a valid certificate; deploy on https:// (for local development a tunnel such as ngrok provides one), or pass --allow-http to check a local server"
            ))
        }
    }

    private func checkRelyingPartyID(_ relyingPartyID: String, site: Site, in section: inout DoctorSection) {
        if PublicSuffixList.isIPAddress(site.host) {
            section.add(.fail("domain.rp_id", "the domain \(site.host) is an IP address", fix: "passkeys are scoped to a domain name; use the DNS name of the deployment"))
        } else if suffixes.isListedPublicSuffix(relyingPartyID) {
            section.add(.fail("domain.rp_id", "RP ID \(relyingPartyID) is a public suffix", fix: "use your own registrable domain as relying_party.id, such as \(suffixes.registrableDomain(of: site.host) ?? site.host)"))
        } else if relyingPartyID == site.host {
            section.add(.pass("domain.rp_id", "RP ID \(relyingPartyID) is the domain itself"))
        } else if suffixes.isRegistrableDomainSuffix(relyingPartyID, of: site.host) {
            section.add(.pass("domain.rp_id", "RP ID \(relyingPartyID) is a registrable suffix of \(site.host)"))
        } else {
            section.add(.fail(
                "domain.rp_id", "RP ID \(relyingPartyID) does not match the domain \(site.host)",
                fix: "the RP ID must be the domain or a parent domain that is not a public suffix (such as \(suffixes.registrableDomain(of: site.host) ?? site.host)); correct relying_party.id or the URL you deployed to"
            ))
        }
    }
}

/// The origin of the URL the doctor was given.
struct Site: Sendable {
    let scheme: String
    let host: String
    let origin: URL

    init(_ url: URL) throws(Doctor.UsageError) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host?.lowercased(), !host.isEmpty else {
            throw Doctor.UsageError(description: "--url must be an http(s) URL such as https://example.com, found \(url.absoluteString)")
        }
        self.scheme = scheme
        self.host = host
        let port = url.port.map { ":\($0)" } ?? ""
        guard let origin = URL(string: "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)\(port)") else {
            throw Doctor.UsageError(description: "--url has no usable origin: \(url.absoluteString)")
        }
        self.origin = origin
    }
}

/// One examination: what every document check needs.
struct DoctorRun: Sendable {
    let fetcher: any DocumentFetching
    let suffixes: PublicSuffixList
    let settings: AssociationSettings?
    let relyingPartyID: String
    /// Where the files are fetched from: the RP ID's host.
    let base: URL
    let site: Site
    let allowHTTP: Bool

    func url(_ path: String) -> URL { base.appendingPathComponent(path) }
}
