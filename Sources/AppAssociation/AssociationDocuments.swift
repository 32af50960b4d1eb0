/// `/.well-known/apple-app-site-association`: which apps may use the domain's passkeys
/// (`webcredentials`) and open its links (`applinks`). Members a deployed file may lack
/// are optional so that a checker can say which one is missing.
public struct AppleAppSiteAssociation: Codable, Sendable, Hashable {
    /// `webcredentials`: the apps that share the domain's credentials.
    public struct WebCredentials: Codable, Sendable, Hashable {
        /// App IDs, `TEAMID.bundle.id`.
        public var apps: [String]?

        public init(apps: [String]?) { self.apps = apps }
    }

    /// `applinks`: Universal Links.
    public struct AppLinks: Codable, Sendable, Hashable {
        /// One entry of `details`.
        public struct Detail: Codable, Sendable, Hashable {
            /// The apps the entry is for (iOS 13 and later).
            public var appIDs: [String]?
            /// The app the entry is for (the older single-app form).
            public var appID: String?
            /// URL patterns (iOS 13 and later).
            public var components: [Component]?
            /// URL paths (the older form).
            public var paths: [String]?
        }

        /// A URL pattern. Only the members Latchkey writes are modelled; others (`?`, `#`)
        /// are ignored when reading.
        public struct Component: Codable, Sendable, Hashable {
            /// The path pattern, the `/` member.
            public var path: String?
            /// Whether matching URLs are excluded.
            public var exclude: Bool?

            /// Leaves `exclude` unset, so URLs matching `path` are included.
            public init(path: String) { self.path = path }

            enum CodingKeys: String, CodingKey {
                case path = "/"
                case exclude
            }
        }

        /// The older form's app list, required to be empty.
        public var apps: [String]?
        /// The entries.
        public var details: [Detail]?

        /// Leaves the older `apps` list unset.
        public init(details: [Detail]) { self.details = details }
    }

    /// The passkey member.
    public var webcredentials: WebCredentials?
    /// The Universal Links member.
    public var applinks: AppLinks?

    public init(webcredentials: WebCredentials?, applinks: AppLinks? = nil) {
        self.webcredentials = webcredentials
        self.applinks = applinks
    }
}

/// One statement of `/.well-known/assetlinks.json` (Digital Asset Links).
public struct AssetLinkStatement: Codable, Sendable, Hashable {
    /// The asset the statement is about.
    public struct Target: Codable, Sendable, Hashable {
        /// `android_app` or `web`.
        public var namespace: String?
        /// The application ID, for `android_app`.
        public var package_name: String?
        /// Signing certificate fingerprints, for `android_app`.
        public var sha256_cert_fingerprints: [String]?
        /// The site, for `web`.
        public var site: String?

        /// Sets `namespace` to `android_app`; `fingerprints` are SHA-256 signing
        /// certificate fingerprints.
        public init(packageName: String, fingerprints: [String]) {
            namespace = "android_app"
            package_name = packageName
            sha256_cert_fingerprints = fingerprints
        }
    }

    /// The relations granted, such as `delegate_permission/common.get_login_creds`.
    public var relation: [String]?
    /// The asset.
    public var target: Target?

    /// Lets the app use the site's credentials, passkeys included.
    public static let getLoginCredentials = "delegate_permission/common.get_login_creds"
    /// Lets the app open the site's links (App Links).
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"
}

/// `/.well-known/webauthn`: the origins that may use the RP ID (WebAuthn L3 §5.11).
public struct RelatedOriginsDocument: Codable, Sendable, Hashable {
    /// Web origins.
    public var origins: [String]?

    public init(origins: [String]) { self.origins = origins }
}

/// `/.well-known/passkey-endpoints` (W3C "A Well-Known URL for Relying Party Passkey
/// Endpoints"): where a password manager sends people to add or manage passkeys.
public struct PasskeyEndpoints: Codable, Sendable, Hashable {
    /// The page that creates a passkey for the signed-in account.
    public var enroll: String?
    /// The page that lists the account's passkeys.
    public var manage: String?
    /// A page describing how the relying party uses the PRF extension.
    public var prfUsageDetails: String?

    public init(enroll: String?, manage: String?, prfUsageDetails: String? = nil) {
        self.enroll = enroll
        self.manage = manage
        self.prfUsageDetails = prfUsageDetails
    }
}
