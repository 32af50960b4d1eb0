import AppAssociation
import FaceFrame
import HTTPAPI

/// Renders the well-known documents from the configuration.
enum WellKnownDocumentsBuilder {
    static let appleAppSiteAssociationPath = "/.well-known/apple-app-site-association"
    static let assetLinksPath = "/.well-known/assetlinks.json"
    static let passkeyEndpointsPath = "/.well-known/passkey-endpoints"
    static let relatedOriginsPath = "/.well-known/webauthn"

    static func build(_ configuration: LatchkeyConfiguration) -> WellKnownDocuments {
        let association = configuration.association
        var served: [String: [UInt8]] = [:]
        var absent: [String: String] = [:]
        if let document = association.appleAppSiteAssociation {
            served[appleAppSiteAssociationPath] = AssociationSettings.jsonBytes(document)
        } else {
            absent[appleAppSiteAssociationPath] = "no Apple app is configured; add ios: { team_id, bundle_ids } to a client"
        }
        if let statements = association.assetLinks {
            served[assetLinksPath] = AssociationSettings.jsonBytes(statements)
        } else {
            absent[assetLinksPath] = "no Android app is configured; add android: { package_name, sha256_cert_fingerprints } to a client"
        }
        if let document = association.relatedOriginsDocument {
            served[relatedOriginsPath] = AssociationSettings.jsonBytes(document)
        } else {
            absent[relatedOriginsPath] = "no related origins are configured; add relying_party.related_origins"
        }
        served[passkeyEndpointsPath] = AssociationSettings.jsonBytes(association.passkeyEndpoints)
        return WellKnownDocuments(served: served, absent: absent, cacheControl: configuration.wellKnownCacheControl)
    }
}
