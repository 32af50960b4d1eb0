public import LatchkeyWire

/// What makes and uses passkeys for ``Latchkey``: the platform's credential manager on Apple
/// platforms, or the software authenticator (`SoftwarePasskeyProvider`) on Linux, in tests
/// and in the CLI.
///
/// A provider only talks to the person and the authenticator; ``Latchkey`` talks to the
/// server. Throw `LatchkeyAPIError` with a client code (`LatchkeyAPIError/Code/cancelled`,
/// `LatchkeyAPIError/Code/noCredential`, `LatchkeyAPIError/Code/upgradeRefused`, …) so
/// that the app can tell the person what happened; any other error arrives as
/// `LatchkeyAPIError/Code/passkeyFailed`.
public protocol PasskeyProvider: Sendable {
    /// Creates a passkey for `request`'s options.
    func createPasskey(_ request: PasskeyCreationRequest) async throws -> PasskeyCreation

    /// Asserts a passkey for `request`'s options.
    func assertPasskey(_ request: PasskeyAssertionRequest) async throws -> AuthenticationResponseJSON

    /// Tells the credential manager what the server knows, so that it stops offering
    /// passkeys the server no longer accepts and shows current names.
    func report(_ signals: [PasskeySignal]) async throws
}

/// A passkey to create.
public struct PasskeyCreationRequest: Sendable {
    /// How the passkey is asked for.
    public enum Style: Sendable, Hashable {
        /// A new account whose contact identifier the person picks on the system sheet (the
        /// account creation API): the options carry no user names yet.
        case accountCreation
        /// A passkey for an account whose identifier the app already knows.
        case standard
        /// An automatic upgrade after a password sign-in: no sheet; the platform may decline.
        case conditional
    }

    /// The server's creation options.
    public var options: PublicKeyCredentialCreationOptionsJSON
    /// How the passkey is asked for.
    public var style: Style

    public init(options: PublicKeyCredentialCreationOptionsJSON, style: Style) {
        self.options = options
        self.style = style
    }
}

/// A created passkey.
public struct PasskeyCreation: Sendable {
    /// The registration to send to the server.
    public var response: RegistrationResponseJSON
    /// For ``PasskeyCreationRequest/Style/accountCreation``: the identifier the person chose.
    public var contact: LatchkeyContact?
    /// For ``PasskeyCreationRequest/Style/accountCreation``: the name the person gave.
    public var name: String?

    public init(response: RegistrationResponseJSON, contact: LatchkeyContact? = nil, name: String? = nil) {
        self.response = response
        self.contact = contact
        self.name = name
    }
}

/// A passkey to assert.
public struct PasskeyAssertionRequest: Sendable {
    /// How the person is asked.
    public enum Mode: Sendable, Hashable {
        /// A sheet, only when the device has a passkey at hand
        /// (`preferImmediatelyAvailableCredentials`): otherwise `LatchkeyAPIError/Code/noCredential`
        /// at once, and the app shows its other ways in.
        case immediate
        /// A sheet that also offers other devices (hybrid, security keys).
        case modal
        /// AutoFill-assisted: the passkey is offered in the keyboard's suggestions.
        case autoFill
    }

    /// The server's request options.
    public var options: PublicKeyCredentialRequestOptionsJSON
    /// How the person is asked.
    public var mode: Mode

    public init(options: PublicKeyCredentialRequestOptionsJSON, mode: Mode) {
        self.options = options
        self.mode = mode
    }
}

/// A contact identifier: an email address or a phone number.
public enum LatchkeyContact: Sendable, Hashable, Codable {
    /// An email address.
    case email(String)
    /// A phone number in E.164 form.
    case phoneNumber(String)
}

/// What a credential manager should learn (WebAuthn's signal methods; on Apple platforms
/// `ASCredentialDataManager` or `ASCredentialUpdater`).
public enum PasskeySignal: Sendable, Hashable {
    /// The server does not know this credential: stop offering it.
    case unknownCredential(relyingPartyID: String, credentialID: Base64URLBytes)
    /// The account's passkeys are exactly these; hide the others of that user.
    case allAcceptedCredentials(relyingPartyID: String, userHandle: Base64URLBytes, credentialIDs: [Base64URLBytes])
    /// The account's current names.
    case currentUserDetails(relyingPartyID: String, userHandle: Base64URLBytes, name: String, displayName: String)
    /// The account no longer has a password: the saved one can be offered for removal.
    case unusedPassword(domain: String, userName: String)
}
