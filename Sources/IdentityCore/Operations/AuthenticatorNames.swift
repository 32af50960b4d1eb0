public import WebAuthn

/// Names passkey providers by AAGUID (for example "iCloud Keychain"), from the FIDO
/// metadata when configured, else from the community list the server ships. Used for naming only, never for trust; an AAGUID that is not
/// listed simply has no name.
public struct AuthenticatorNames: Sendable {
    /// A provider's name and icons.
    public struct Entry: Sendable, Hashable {
        /// The provider name.
        public let name: String
        /// An SVG data URI for light backgrounds.
        public let iconLight: String?
        /// An SVG data URI for dark backgrounds.
        public let iconDark: String?

        public init(name: String, iconLight: String?, iconDark: String?) {
            self.name = name
            self.iconLight = iconLight
            self.iconDark = iconDark
        }
    }

    private let entries: [AAGUID: Entry]
    private let metadata: AttestationMetadata?

    /// Looks names up in `entries` only; ``consulting(_:)`` adds FIDO metadata.
    public init(_ entries: [AAGUID: Entry]) {
        self.entries = entries
        self.metadata = nil
    }

    private init(_ entries: [AAGUID: Entry], metadata: AttestationMetadata?) {
        self.entries = entries
        self.metadata = metadata
    }

    /// The same lookup, preferring the model's FIDO metadata statement (its description and
    /// icon) when the metadata in use has one.
    public func consulting(_ metadata: AttestationMetadata) -> AuthenticatorNames {
        AuthenticatorNames(entries, metadata: metadata)
    }

    /// The provider for `aaguid`: from the metadata statement when there is one, else from
    /// the list.
    public func entry(for aaguid: AAGUID) -> Entry? {
        if !aaguid.isZero, let statement = metadata?.blob?.entry(aaguid: aaguid), let name = statement.description {
            return Entry(name: name, iconLight: statement.icon ?? entries[aaguid]?.iconLight, iconDark: statement.icon ?? entries[aaguid]?.iconDark)
        }
        return entries[aaguid]
    }

    /// The name a passkey is shown with: the user's name for it, else its provider's, else
    /// "Passkey".
    public func displayName(of credential: PasskeyCredential) -> String {
        credential.name ?? entry(for: credential.aaguid)?.name ?? "Passkey"
    }

    /// How many providers are listed.
    public var count: Int { entries.count }
}
