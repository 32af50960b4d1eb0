import AppAssociation

/// Reads a client's `ios` and `android` settings. Errors name the client as well as the
/// key, because app settings are what people copy between clients.
enum NativeAppConfiguration {
    /// `ios: { team_id, bundle_ids, applinks }`.
    static func appleApp(_ node: YAMLReader, client: String) throws(ConfigurationError) -> AppleApp? {
        guard node.isPresent else { return nil }
        try node.requireKeys(["team_id", "bundle_ids", "applinks"])
        let teamNode = node.child("team_id")
        guard let text = try teamNode.string() else { throw teamNode.error("client \(client): is required") }
        guard let teamID = AppleApp.validateTeamID(text) else {
            throw teamNode.error("client \(client): must be the 10 letters and digits of your Apple Developer team ID (Membership page), found \"\(text.prefix(40))\"")
        }
        let bundleNode = node.child("bundle_ids")
        guard let bundleIDs = try bundleNode.strings(), !bundleIDs.isEmpty else {
            throw bundleNode.error("client \(client): must list at least one bundle ID, such as [com.example.app]")
        }
        for (index, bundleID) in bundleIDs.enumerated() where !AppleApp.validateBundleID(bundleID) {
            throw ConfigurationError(
                key: "\(bundleNode.path)[\(index)]",
                "client \(client): \"\(bundleID.prefix(160))\" is not a bundle ID (letters, digits, '-' and '.', as in com.example.app)"
            )
        }
        let linksNode = node.child("applinks")
        let paths = try linksNode.strings() ?? []
        for (index, path) in paths.enumerated() where !path.hasPrefix("/") && path != "*" {
            throw ConfigurationError(key: "\(linksNode.path)[\(index)]", "client \(client): a Universal Link path pattern starts with /, as in /account/*")
        }
        return AppleApp(teamID: teamID, bundleIDs: uniqued(bundleIDs), appLinkPaths: paths)
    }

    /// `android: { package_name, sha256_cert_fingerprints }`.
    static func androidApp(_ node: YAMLReader, client: String) throws(ConfigurationError) -> AndroidApp? {
        guard node.isPresent else { return nil }
        try node.requireKeys(["package_name", "sha256_cert_fingerprints"])
        let packageNode = node.child("package_name")
        guard let packageName = try packageNode.string() else { throw packageNode.error("client \(client): is required") }
        guard AndroidApp.validatePackageName(packageName) else {
            throw packageNode.error("client \(client): \"\(packageName.prefix(160))\" is not an application ID (the applicationId in build.gradle, such as com.example.app)")
        }
        let fingerprintsNode = node.child("sha256_cert_fingerprints")
        guard let texts = try fingerprintsNode.strings(), !texts.isEmpty else {
            throw fingerprintsNode.error("client \(client): must list the SHA-256 fingerprint of every signing certificate (Play App Signing, upload and debug keys)")
        }
        var fingerprints: [CertificateFingerprint] = []
        for (index, text) in texts.enumerated() {
            do {
                let fingerprint = try CertificateFingerprint(parsing: text)
                if !fingerprints.contains(fingerprint) { fingerprints.append(fingerprint) }
            } catch {
                throw ConfigurationError(key: "\(fingerprintsNode.path)[\(index)]", "client \(client): \"\(text.prefix(120))\" \(error)")
            }
        }
        return AndroidApp(packageName: packageName, fingerprints: fingerprints)
    }

    private static func uniqued(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }
}
