/// An iOS, iPadOS, macOS or visionOS app that signs in with passkeys for the relying party.
/// Its app IDs go into `webcredentials` of the apple-app-site-association file.
public struct AppleApp: Sendable, Hashable {
    /// The 10-character team ID from the Apple Developer portal (Membership).
    public let teamID: String
    /// The bundle IDs of the team's apps that share these passkeys.
    public let bundleIDs: [String]
    /// Universal Link path patterns (`components` `/` values) for `applinks`; empty to
    /// leave `applinks` out.
    public let appLinkPaths: [String]

    /// Creates an app entry; the values are checked by ``AppleApp/validateTeamID(_:)`` and
    /// ``AppleApp/validateBundleID(_:)``.
    public init(teamID: String, bundleIDs: [String], appLinkPaths: [String] = []) {
        self.teamID = teamID
        self.bundleIDs = bundleIDs
        self.appLinkPaths = appLinkPaths
    }

    /// `TEAMID.bundle.id` for each bundle ID.
    public var appIDs: [String] { bundleIDs.map { "\(teamID).\($0)" } }

    /// Checks a team ID: exactly 10 letters or digits. Returns it in uppercase, the form
    /// Apple issues and matches.
    public static func validateTeamID(_ text: String) -> String? {
        guard text.count == 10, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return text.uppercased()
    }

    /// Checks a bundle ID: letters, digits, `-` and `.`, not starting or ending with `.`.
    public static func validateBundleID(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 155 && !text.hasPrefix(".") && !text.hasSuffix(".") && !text.contains("..")
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    /// Splits an app ID (`TEAMID.bundle.id`) into its team and bundle IDs.
    public static func splitAppID(_ appID: String) -> (teamID: String, bundleID: String)? {
        guard let dot = appID.firstIndex(of: ".") else { return nil }
        let team = String(appID[..<dot])
        let bundle = String(appID[appID.index(after: dot)...])
        guard let teamID = validateTeamID(team), teamID == team, validateBundleID(bundle) else { return nil }
        return (teamID, bundle)
    }
}

/// An Android app that signs in with passkeys for the relying party. It gets one statement
/// in assetlinks.json, and each fingerprint is an allowed `android:apk-key-hash:` origin.
public struct AndroidApp: Sendable, Hashable {
    /// The application ID (`applicationId` in build.gradle).
    public let packageName: String
    /// Every signing certificate the app ships with: the Play App Signing key, the upload
    /// key and the debug key.
    public let fingerprints: [CertificateFingerprint]

    /// Creates an app entry; the package name is checked by
    /// ``AndroidApp/validatePackageName(_:)``.
    public init(packageName: String, fingerprints: [CertificateFingerprint]) {
        self.packageName = packageName
        self.fingerprints = fingerprints
    }

    /// Checks an application ID: two or more segments of letters, digits and `_`, each
    /// starting with a letter.
    public static func validatePackageName(_ text: String) -> Bool {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        return segments.count >= 2 && text.count <= 255 && segments.allSatisfy { segment in
            guard let first = segment.first, first.isASCII, first.isLetter else { return false }
            return segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
    }
}
