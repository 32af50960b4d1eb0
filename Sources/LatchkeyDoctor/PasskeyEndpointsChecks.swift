import AppAssociation
import Foundation

extension DoctorRun {
    /// `/.well-known/passkey-endpoints`: absolute URLs of the enroll and manage pages on the
    /// relying party's own site.
    func checkPasskeyEndpoints() async -> DoctorSection {
        let url = url(".well-known/passkey-endpoints")
        var section = DoctorSection(title: "passkey-endpoints", url: url.absoluteString)
        var outcome = await fetcher.fetch(url)
        var fetched = url
        // The specification allows one redirect (302, 303 or 307) on the same site.
        if case .response(let response) = outcome, [302, 303, 307].contains(response.status), let location = response.location,
            let target = URL(string: location, relativeTo: url)?.absoluteURL, let host = target.host,
            suffixes.isSameSite(host, relyingPartyID)
        {
            section.add(.pass("endpoints.redirect", "redirects (\(response.status)) to \(target.absoluteString) on the same site, which the specification allows"))
            fetched = target
            outcome = await fetcher.fetch(target)
        }
        let checks = ResponseChecks(id: "endpoints", fileName: "passkey-endpoints", url: fetched)
        guard let document = checks.document(
            PasskeyEndpoints.self,
            from: outcome,
            shape: "an object whose enroll and manage members are URLs",
            notFoundFix: "serve {\"enroll\": …, \"manage\": …} at \(url.absoluteString) so that password managers can send people to your passkey pages (Latchkey serves it)",
            in: &section
        ) else { return section }

        let members: [(String, String?, String?)] = [
            ("enroll", document.enroll, settings?.passkeyEndpoints.enroll),
            ("manage", document.manage, settings?.passkeyEndpoints.manage),
            ("prfUsageDetails", document.prfUsageDetails, settings?.passkeyEndpoints.prfUsageDetails),
        ]
        if document.enroll == nil && document.manage == nil {
            section.add(.fail("endpoints.members", "lists neither enroll nor manage", fix: "add the absolute URLs of the pages that create and list passkeys"))
        }
        for (name, value, configured) in members {
            if let value { section.add(checkEndpoint(name, value)) }
            if let configured, value != configured {
                section.add(.fail(
                    "endpoints.\(name)", "\(name) is \(value ?? "missing"), the configuration says \(configured)",
                    fix: "deploy the current configuration, or correct relying_party.passkey_endpoints.\(name == "prfUsageDetails" ? "prf_usage_details" : name)"
                ))
            }
        }
        return section
    }

    private func checkEndpoint(_ name: String, _ value: String) -> DoctorCheck {
        guard let url = URL(string: value), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
            return .fail("endpoints.\(name)", "\(name) \"\(value)\" is not an absolute URL", fix: "use a full URL such as https://\(relyingPartyID)/account/passkeys")
        }
        guard scheme == "https" || (scheme == "http" && allowHTTP) else {
            return .fail("endpoints.\(name)", "\(name) \(value) does not use https", fix: "password managers open only https pages; use https://")
        }
        guard suffixes.isSameSite(host, relyingPartyID) else {
            return .fail(
                "endpoints.\(name)", "\(name) \(value) is not on the same site as \(relyingPartyID)",
                fix: "the pages must be on the relying party's own site (\(suffixes.registrableDomain(of: relyingPartyID) ?? relyingPartyID)); password managers ignore other sites"
            )
        }
        return .pass("endpoints.\(name)", "\(name) is \(value), absolute and on the same site")
    }
}
