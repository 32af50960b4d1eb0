public import AppAssociation
public import Foundation

/// What a domain's deployed files say, turned into configuration: the "sync with
/// association files" step. Reading the files an app team already hosts means the same
/// facts need not be typed twice.
public struct AssociationImport: Sendable {
    /// The apps and origins found.
    public let settings: AssociationSettings
    /// Files or entries that could not be imported, and why.
    public let problems: [String]

    /// Whether anything was found.
    public var isEmpty: Bool {
        settings.appleApps.isEmpty && settings.androidApps.isEmpty && settings.relatedOrigins.isEmpty
            && settings.passkeyEndpoints.enroll == nil && settings.passkeyEndpoints.manage == nil
    }

    /// The configuration entries, as YAML to merge into a configuration file, followed by
    /// the origins Latchkey derives from them.
    public func yaml(source: String) -> String {
        var lines = ["# Imported by latchkey doctor --import from \(source).", "# Merge these entries into your configuration file."]
        for problem in problems { lines.append("# not imported: \(problem)") }
        lines.append("relying_party:")
        lines.append("  id: \(settings.relyingPartyID)")
        if !settings.relatedOrigins.isEmpty {
            lines.append("  related_origins:")
            lines += settings.relatedOrigins.map { "    - \(Self.quoted($0))" }
        }
        let endpoints = [("enroll", settings.passkeyEndpoints.enroll), ("manage", settings.passkeyEndpoints.manage), ("prf_usage_details", settings.passkeyEndpoints.prfUsageDetails)]
            .compactMap { name, value in value.map { "    \(name): \(Self.quoted($0))" } }
        if !endpoints.isEmpty {
            lines.append("  passkey_endpoints:")
            lines += endpoints
        }
        let clients = clientEntries()
        if !clients.isEmpty {
            lines.append("clients:")
            lines += clients
        }
        let derived = settings.derivedOrigins
        if !derived.isEmpty {
            lines.append("# Origins Latchkey accepts because of these entries:")
            lines += derived.map { "#   \($0.origin)  (\($0.source))" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One client per app identifier; an iOS and an Android app with the same identifier
    /// share one.
    private func clientEntries() -> [String] {
        var identifiers: [String] = []
        for app in settings.appleApps { identifiers += app.bundleIDs }
        for app in settings.androidApps { identifiers.append(app.packageName) }
        var seen: Set<String> = []
        var lines: [String] = []
        for identifier in identifiers where seen.insert(identifier).inserted {
            lines.append("  - client_id: \(Self.quoted(identifier))")
            lines.append("    name: \(Self.quoted(identifier))")
            if let apple = settings.appleApps.first(where: { $0.bundleIDs.contains(identifier) }) {
                lines.append("    ios:")
                lines.append("      team_id: \(Self.quoted(apple.teamID))")
                lines.append("      bundle_ids: [\(Self.quoted(identifier))]")
                if !apple.appLinkPaths.isEmpty {
                    lines.append("      applinks: [\(apple.appLinkPaths.map(Self.quoted).joined(separator: ", "))]")
                }
            }
            if let android = settings.androidApps.first(where: { $0.packageName == identifier }) {
                lines.append("    android:")
                lines.append("      package_name: \(Self.quoted(identifier))")
                lines.append("      sha256_cert_fingerprints:")
                lines += android.fingerprints.map { "        - \(Self.quoted($0.description))" }
            }
        }
        return lines
    }

    /// A double-quoted YAML scalar, so that colons, `#` and digits-only values stay strings.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension Doctor {
    /// Reads a domain's deployed association files and turns them into configuration.
    /// - Parameter url: The domain, such as `https://example.com`; its host is taken as the RP ID.
    public func importAssociation(from url: URL) async throws(UsageError) -> AssociationImport {
        let site = try Site(url)
        var problems: [String] = []

        func document<Document: Decodable>(_ path: String, as type: Document.Type) async -> Document? {
            switch await fetcher.fetch(site.origin.appendingPathComponent(path)) {
            case .failed(let reason):
                problems.append("\(path): \(reason)")
            case .response(let response) where response.status != 200:
                if response.status != 404 { problems.append("\(path): answers \(response.status)") }
            case .response(let response):
                do {
                    return try JSONDecoder().decode(Document.self, from: Data(response.body))
                } catch {
                    problems.append("\(path): not the expected JSON (run latchkey doctor without --import for details)")
                }
            }
            return nil
        }

        let apple = await document(".well-known/apple-app-site-association", as: AppleAppSiteAssociation.self)
        let statements = await document(".well-known/assetlinks.json", as: [AssetLinkStatement].self)
        let related = await document(".well-known/webauthn", as: RelatedOriginsDocument.self)
        let endpoints = await document(".well-known/passkey-endpoints", as: PasskeyEndpoints.self)

        let settings = AssociationSettings(
            relyingPartyID: site.host,
            appleApps: Self.appleApps(apple, problems: &problems),
            androidApps: Self.androidApps(statements ?? [], problems: &problems),
            relatedOrigins: (related?.origins ?? []).filter { origin in
                guard WebOriginText(origin)?.isPotentiallyTrustworthy == true else {
                    problems.append("related origin \(origin): not an https origin")
                    return false
                }
                return true
            },
            passkeyEndpoints: endpoints ?? PasskeyEndpoints(enroll: nil, manage: nil)
        )
        return AssociationImport(settings: settings, problems: problems)
    }

    private static func appleApps(_ document: AppleAppSiteAssociation?, problems: inout [String]) -> [AppleApp] {
        var paths: [String: [String]] = [:]
        for detail in document?.applinks?.details ?? [] {
            let patterns = (detail.components ?? []).filter { $0.exclude != true }.compactMap(\.path) + (detail.paths ?? [])
            for appID in (detail.appIDs ?? []) + [detail.appID].compactMap({ $0 }) { paths[appID, default: []] += patterns }
        }
        return (document?.webcredentials?.apps ?? []).compactMap { appID in
            guard let (team, bundle) = AppleApp.splitAppID(appID) else {
                problems.append("app ID \(appID): not TEAMID.bundle.id")
                return nil
            }
            return AppleApp(teamID: team, bundleIDs: [bundle], appLinkPaths: paths[appID] ?? [])
        }
    }

    private static func androidApps(_ statements: [AssetLinkStatement], problems: inout [String]) -> [AndroidApp] {
        var apps: [AndroidApp] = []
        for statement in statements where statement.target?.namespace == "android_app" {
            guard let package = statement.target?.package_name, AndroidApp.validatePackageName(package) else {
                problems.append("package \(statement.target?.package_name ?? "(none)"): not an application ID")
                continue
            }
            if !(statement.relation ?? []).contains(AssetLinkStatement.getLoginCredentials) {
                problems.append("\(package): imported, but its statement lacks delegate_permission/common.get_login_creds, which passkeys need")
            }
            var fingerprints: [CertificateFingerprint] = []
            for text in statement.target?.sha256_cert_fingerprints ?? [] {
                if let fingerprint = try? CertificateFingerprint(parsing: text) {
                    if !fingerprints.contains(fingerprint) { fingerprints.append(fingerprint) }
                } else {
                    problems.append("\(package): fingerprint \(text) is not a SHA-256 fingerprint")
                }
            }
            guard !fingerprints.isEmpty else { continue }
            if let index = apps.firstIndex(where: { $0.packageName == package }) {
                apps[index] = AndroidApp(packageName: package, fingerprints: apps[index].fingerprints + fingerprints.filter { !apps[index].fingerprints.contains($0) })
            } else {
                apps.append(AndroidApp(packageName: package, fingerprints: fingerprints))
            }
        }
        return apps
    }
}
