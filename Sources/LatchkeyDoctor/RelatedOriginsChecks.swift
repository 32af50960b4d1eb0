import AppAssociation
import Foundation

extension DoctorRun {
    /// `/.well-known/webauthn`: the related origins that may use the RP ID.
    func checkRelatedOrigins() async -> DoctorSection {
        let url = url(".well-known/webauthn")
        var section = DoctorSection(title: "webauthn (related origins)", url: url.absoluteString)
        let expected = settings?.relatedOrigins ?? []
        let checks = ResponseChecks(id: "webauthn", fileName: "/.well-known/webauthn", url: url)
        guard let document = checks.document(
            RelatedOriginsDocument.self,
            from: await fetcher.fetch(url),
            shape: "an object whose origins member lists web origins",
            notFoundFix: "serve {\"origins\": [...]} at \(url.absoluteString); browsers fetch it before letting another domain use the RP ID (Latchkey serves relying_party.related_origins there)",
            absentNote: expected.isEmpty ? (settings == nil ? "not served; it is needed only for origins on other domains" : "not served; no related origins are configured") : nil,
            in: &section
        ) else { return section }
        guard let origins = document.origins, !origins.isEmpty else {
            section.add(.fail("webauthn.origins", "lists no origins", fix: "list the related web origins, such as {\"origins\": [\"https://example.co.uk\"]}"))
            return section
        }
        let invalid = origins.filter { WebOriginText($0).map { !$0.isPotentiallyTrustworthy } ?? true }
        section.check(
            "webauthn.origins", passed: invalid.isEmpty, "lists \(origins.joined(separator: ", "))",
            failure: "has entries that are not https origins: \(invalid.joined(separator: ", "))",
            fix: "write each as scheme, host and optional port, such as https://example.co.uk"
        )
        for origin in expected where !origins.contains(origin) {
            section.add(.fail("webauthn.origin", "\(origin) is missing", fix: "deploy the current configuration; browsers refuse ceremonies from \(origin) for this RP ID until it is listed"))
        }
        let ignored = RelatedOrigins.originsBeyondLabelLimit(origins, suffixes: suffixes)
        section.check(
            "webauthn.labels", passed: ignored.isEmpty, "within the \(RelatedOrigins.guaranteedLabelCount) distinct domain labels every browser honours",
            failure: "more than \(RelatedOrigins.guaranteedLabelCount) distinct domain labels; browsers may ignore \(ignored.joined(separator: ", "))",
            fix: "keep the related origins to \(RelatedOrigins.guaranteedLabelCount) registrable names (example.com and example.co.uk share the label example)"
        )
        return section
    }
}
