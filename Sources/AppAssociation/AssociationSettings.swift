import Foundation

/// What a relying party says about its apps and sites. Every association file Latchkey
/// serves and every app origin it accepts is derived from these values, so no fact is
/// configured twice.
public struct AssociationSettings: Sendable, Hashable {
    /// An origin accepted because of an app or related-origin setting, and why.
    public struct DerivedOrigin: Sendable, Hashable {
        /// The origin as clientDataJSON carries it.
        public let origin: String
        /// Where it comes from, for logs and error messages.
        public let source: String
        /// For an Android app origin, the app's package name.
        public let androidPackageName: String?
    }

    /// The RP ID; the association files are fetched from this host.
    public var relyingPartyID: String
    /// Apple platform apps.
    public var appleApps: [AppleApp]
    public var androidApps: [AndroidApp]
    /// Web origins on other domains that may use the RP ID.
    public var relatedOrigins: [String]
    /// The passkey enrollment and management pages.
    public var passkeyEndpoints: PasskeyEndpoints

    public init(relyingPartyID: String, appleApps: [AppleApp] = [], androidApps: [AndroidApp] = [], relatedOrigins: [String] = [], passkeyEndpoints: PasskeyEndpoints) {
        self.relyingPartyID = relyingPartyID
        self.appleApps = appleApps
        self.androidApps = androidApps
        self.relatedOrigins = relatedOrigins
        self.passkeyEndpoints = passkeyEndpoints
    }

    // MARK: - Origins

    /// The origins these settings add to the relying party's own:
    /// - `https://<rp id>` when an Apple app is configured, the origin Apple platforms report
    ///   for an app with the `webcredentials` associated domain;
    /// - `android:apk-key-hash:…` for every fingerprint of every Android app;
    /// - each related origin.
    public var derivedOrigins: [DerivedOrigin] {
        var origins: [DerivedOrigin] = []
        if !appleApps.isEmpty {
            let apps = appleApps.flatMap(\.appIDs).joined(separator: ", ")
            origins.append(.init(origin: "https://\(relyingPartyID)", source: "Apple apps \(apps)", androidPackageName: nil))
        }
        for app in androidApps {
            for fingerprint in app.fingerprints {
                origins.append(.init(origin: fingerprint.androidOrigin, source: "Android app \(app.packageName), certificate \(fingerprint)", androidPackageName: app.packageName))
            }
        }
        for origin in relatedOrigins {
            origins.append(.init(origin: origin, source: "related origin", androidPackageName: nil))
        }
        return origins
    }

    /// The package names each Android app origin may report in `androidPackageName`. Apps
    /// signed with the same certificate share an origin.
    public var androidPackagesByOrigin: [String: Set<String>] {
        var packages: [String: Set<String>] = [:]
        for origin in derivedOrigins {
            if let name = origin.androidPackageName { packages[origin.origin, default: []].insert(name) }
        }
        return packages
    }

    // MARK: - Documents

    /// The apple-app-site-association document, or `nil` when no Apple app is configured.
    public var appleAppSiteAssociation: AppleAppSiteAssociation? {
        guard !appleApps.isEmpty else { return nil }
        let details = appleApps.filter { !$0.appLinkPaths.isEmpty }.map { app in
            AppleAppSiteAssociation.AppLinks.Detail(appIDs: app.appIDs, components: app.appLinkPaths.map { .init(path: $0) })
        }
        return AppleAppSiteAssociation(
            webcredentials: .init(apps: Self.unique(appleApps.flatMap(\.appIDs))),
            applinks: details.isEmpty ? nil : .init(details: details)
        )
    }

    /// The assetlinks.json statements, one per Android app, or `nil` when none is configured.
    public var assetLinks: [AssetLinkStatement]? {
        guard !androidApps.isEmpty else { return nil }
        return androidApps.map { app in
            AssetLinkStatement(
                relation: [AssetLinkStatement.handleAllURLs, AssetLinkStatement.getLoginCredentials],
                target: .init(packageName: app.packageName, fingerprints: Self.unique(app.fingerprints.map(\.description)))
            )
        }
    }

    /// The `/.well-known/webauthn` document, or `nil` when no related origin is configured.
    public var relatedOriginsDocument: RelatedOriginsDocument? {
        relatedOrigins.isEmpty ? nil : RelatedOriginsDocument(origins: relatedOrigins)
    }

    /// A document's bytes as served: compact JSON, keys sorted, slashes unescaped, so the
    /// bytes are the same on every start.
    public static func jsonBytes(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The document types hold only strings, lists and booleans, which always encode.
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    private static func unique(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }
}
