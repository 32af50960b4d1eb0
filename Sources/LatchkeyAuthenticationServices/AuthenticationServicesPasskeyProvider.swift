import Foundation
#if canImport(AuthenticationServices)
public import AuthenticationServices
import CryptoKit
#else
public import AuthenticationServicesShim
import Crypto
#endif
public import LatchkeyClient

/// The platform's passkeys as the SDK's ``PasskeyProvider``: AuthenticationServices sheets
/// for creating and using passkeys, and the credential manager reports for signals.
///
/// - Sign-up without a form: the account creation API (iOS, macOS and visionOS 26), where
///   the person picks the email address or phone number on the system sheet. Earlier, the
///   provider asks `contactForm` (the app's own form) and makes a standard registration;
///   without a form it throws ``LatchkeyAPIError/Code/deviceNotConfigured`` so that the app
///   shows its form and calls `signUp(email:name:)`.
/// - Automatic upgrades: a conditional registration (`requestStyle = .conditional`, 18+);
///   whatever the system declines becomes ``LatchkeyAPIError/Code/upgradeRefused``.
/// - Sign-in: `preferImmediatelyAvailableCredentials` (no sheet when nothing is at hand:
///   ``LatchkeyAPIError/Code/noCredential``), a modal sheet, or AutoFill.
/// - Signals: `ASCredentialDataManager` (26.2+) or `ASCredentialUpdater` (26.0–26.1);
///   earlier systems have no such API and the signals are dropped.
///
/// The app needs the `webcredentials:<relying party ID>` associated domain.
public final class AuthenticationServicesPasskeyProvider: PasskeyProvider, Sendable {
    /// The kinds of identifier the account creation sheet offers, in order of preference.
    public enum ContactKind: Sendable, Hashable {
        case email, phoneNumber
    }

    /// The relying party ID (the domain of the `webcredentials` association).
    public let relyingPartyID: String
    /// The identifiers a new account may have.
    public let acceptedContacts: [ContactKind]
    /// Whether the account creation sheet asks for the person's name.
    public let requestsName: Bool
    private let anchor: @MainActor @Sendable () -> ASPresentationAnchor
    private let contactForm: (@MainActor @Sendable () async throws -> (LatchkeyContact, String?))?

    /// - Parameters:
    ///   - relyingPartyID: The relying party ID, for example `example.com`.
    ///   - acceptedContacts: The identifiers a new account may have; email first by default.
    ///   - requestsName: Whether account creation asks for a name.
    ///   - presentationAnchor: The window the sheets attach to.
    ///   - contactForm: Before the account creation API (iOS and macOS 26), the app's own
    ///     form for the identifier and name of a new account.
    public init(
        relyingPartyID: String, acceptedContacts: [ContactKind] = [.email], requestsName: Bool = true,
        presentationAnchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor,
        contactForm: (@MainActor @Sendable () async throws -> (LatchkeyContact, String?))? = nil
    ) {
        self.relyingPartyID = relyingPartyID
        self.acceptedContacts = acceptedContacts
        self.requestsName = requestsName
        self.anchor = presentationAnchor
        self.contactForm = contactForm
    }

    // MARK: - Creating

    public func createPasskey(_ request: PasskeyCreationRequest) async throws -> PasskeyCreation {
        try await create(request)
    }

    // AuthenticationServices objects are not Sendable: each ceremony is built, run and read
    // on the main actor, where the sheets live, and only JSON leaves it.
    @MainActor
    private func create(_ request: PasskeyCreationRequest) async throws -> PasskeyCreation {
        let options = request.options
        let relyingPartyID = options.rp.id ?? self.relyingPartyID
        let challenge = Data(options.challenge.bytes), userID = Data(options.user.id.bytes)
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: relyingPartyID)
        switch request.style {
        case .accountCreation:
            if #available(iOS 26.0, macOS 26.0, visionOS 26.0, *) {
                let creation = ASAuthorizationAccountCreationProvider().createPlatformPublicKeyCredentialRegistrationRequest(
                    acceptedContactIdentifiers: acceptedContacts.map { $0 == .email ? .email : .phoneNumber }, shouldRequestName: requestsName,
                    relyingPartyIdentifier: relyingPartyID, challenge: challenge, userID: userID
                )
                guard case .accountCreation(let object) = try await perform(creation, mode: .modal, creating: true),
                    let account = object as? ASAuthorizationAccountCreationPlatformPublicKeyCredential
                else { throw Self.unexpected }
                let contact: LatchkeyContact
                switch account.contactIdentifier {
                case .email(let email): contact = .email(email.value)
                case .phoneNumber(let number): contact = .phoneNumber(number.value)
                @unknown default: throw Self.unexpected
                }
                return PasskeyCreation(
                    response: Self.registration(account.credentialRegistration), contact: contact, name: account.name.map(Self.fullName)
                )
            }
            // Before the account creation API: the app's form, then a standard registration.
            guard let contactForm else {
                throw LatchkeyAPIError(
                    status: nil, code: .deviceNotConfigured,
                    detail: "the account creation API needs iOS or macOS 26; show a sign-up form and call signUp(email:name:)"
                )
            }
            let (contact, name) = try await contactForm()
            let identifier: String
            switch contact {
            case .email(let email): identifier = email
            case .phoneNumber(let number): identifier = number
            }
            let registration = provider.createCredentialRegistrationRequest(challenge: challenge, name: identifier, userID: userID)
            registration.displayName = name ?? identifier
            Self.apply(options, to: registration)
            guard case .registration(let created) = try await perform(registration, mode: .modal, creating: true) else { throw Self.unexpected }
            return PasskeyCreation(response: Self.registration(created), contact: contact, name: name)
        case .standard, .conditional:
            let registration: ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest
            if request.style == .conditional {
                guard #available(iOS 18.0, macOS 15.0, visionOS 2.0, *) else {
                    throw LatchkeyAPIError(status: nil, code: .upgradeRefused, detail: "automatic passkey upgrades need iOS 18 or macOS 15")
                }
                registration = provider.createCredentialRegistrationRequest(challenge: challenge, name: options.user.name, userID: userID, requestStyle: .conditional)
            } else {
                registration = provider.createCredentialRegistrationRequest(challenge: challenge, name: options.user.name, userID: userID)
            }
            registration.displayName = options.user.displayName
            Self.apply(options, to: registration)
            do {
                guard case .registration(let created) = try await perform(registration, mode: .modal, creating: true) else { throw Self.unexpected }
                return PasskeyCreation(response: Self.registration(created))
            } catch let error as LatchkeyAPIError where request.style == .conditional && error.code != .upgradeRefused {
                // A conditional request fails without showing anything, whatever the reason.
                throw LatchkeyAPIError(status: nil, code: .upgradeRefused, detail: "the system declined the automatic upgrade (\(error.detail ?? error.code.rawValue))")
            }
        }
    }

    // MARK: - Asserting

    public func assertPasskey(_ request: PasskeyAssertionRequest) async throws -> AuthenticationResponseJSON {
        try await assert(request)
    }

    @MainActor
    private func assert(_ request: PasskeyAssertionRequest) async throws -> AuthenticationResponseJSON {
        let options = request.options
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.rpId ?? relyingPartyID)
        let assertion = provider.createCredentialAssertionRequest(challenge: Data(options.challenge.bytes))
        assertion.allowedCredentials = (options.allowCredentials ?? []).map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: Data($0.id.bytes)) }
        if let preference = options.userVerification {
            assertion.userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: preference)
        }
        if #available(iOS 18, macOS 15, visionOS 2, *), let prf = options.extensions?.prf {
            assertion.prf = try Self.prfInput(prf)
        }
        let mode: PresentationMode
        switch request.mode {
        case .immediate: mode = .immediate
        case .modal: mode = .modal
        case .autoFill: mode = .autoFill
        }
        guard case .assertion(let used) = try await perform(assertion, mode: mode, creating: false) else { throw Self.unexpected }
        return AuthenticationResponseJSON(
            id: Base64URL.encode([UInt8](used.credentialID)), rawId: Base64URLBytes(used.credentialID),
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URLBytes(used.rawClientDataJSON), authenticatorData: Base64URLBytes(used.rawAuthenticatorData ?? Data()),
                signature: Base64URLBytes(used.signature ?? Data()), userHandle: used.userID.map(Base64URLBytes.init)
            ),
            authenticatorAttachment: used.attachment == .crossPlatform ? "cross-platform" : "platform",
            clientExtensionResults: Self.prfOutput(of: used)
        )
    }

    /// The PRF salts as AuthenticationServices takes them: `eval`, and `evalByCredential`
    /// keyed by credential ID bytes.
    @available(iOS 18, macOS 15, visionOS 2, *)
    static func prfInput(_ prf: PRFInputs) throws -> ASAuthorizationPublicKeyCredentialPRFAssertionInput? {
        func values(_ values: PRFValues) -> ASAuthorizationPublicKeyCredentialPRFAssertionInput.InputValues {
            .saltInput1(Data(values.first.bytes), saltInput2: values.second.map { Data($0.bytes) })
        }
        var byCredential: [Data: ASAuthorizationPublicKeyCredentialPRFAssertionInput.InputValues] = [:]
        for (id, salts) in prf.evalByCredential ?? [:] {
            guard let bytes = Base64URL.decode(id), !bytes.isEmpty else {
                throw LatchkeyAPIError(status: nil, code: .passkeyFailed, detail: "prf.evalByCredential names a credential ID that is not base64url: \(id)")
            }
            byCredential[Data(bytes)] = values(salts)
        }
        if let eval = prf.eval { return .inputValues(values(eval), perCredentialInputValues: byCredential.isEmpty ? nil : byCredential) }
        return byCredential.isEmpty ? nil : .perCredentialInputValues(byCredential)
    }

    /// The PRF secrets the passkey gave, as the SDK's extension outputs.
    static func prfOutput(of assertion: ASAuthorizationPlatformPublicKeyCredentialAssertion) -> ClientExtensionResults {
        guard #available(iOS 18, macOS 15, visionOS 2, *), let prf = assertion.prf else { return ClientExtensionResults() }
        func bytes(_ key: SymmetricKey) -> Base64URLBytes { Base64URLBytes(key.withUnsafeBytes { Array($0) }) }
        return ClientExtensionResults(prf: PRFOutputs(results: PRFValues(first: bytes(prf.first), second: prf.second.map(bytes))))
    }

    // MARK: - Signals

    public func report(_ signals: [PasskeySignal]) async throws {
        for signal in signals {
            if #available(iOS 26.2, macOS 26.2, visionOS 26.2, *) {
                try await Self.report(signal, to: ASCredentialDataManager())
            } else if #available(iOS 26.0, macOS 26.0, visionOS 26.0, *) {
                try await Self.report(signal, to: ASCredentialUpdater())
            }
        }
    }

    // MARK: - Internals

    private static let unexpected = LatchkeyAPIError(status: nil, code: .passkeyFailed, detail: "the system returned another kind of credential")

    private static func report(_ signal: PasskeySignal, to manager: some CredentialReports) async throws {
        switch signal {
        case .unknownCredential(let rp, let id):
            try await manager.reportUnknownPublicKeyCredential(relyingPartyIdentifier: rp, credentialID: Data(id.bytes))
        case .allAcceptedCredentials(let rp, let user, let ids):
            try await manager.reportAllAcceptedPublicKeyCredentials(relyingPartyIdentifier: rp, userHandle: Data(user.bytes), acceptedCredentialIDs: ids.map { Data($0.bytes) })
        case .currentUserDetails(let rp, let user, let name, _):
            try await manager.reportPublicKeyCredentialUpdate(relyingPartyIdentifier: rp, userHandle: Data(user.bytes), newName: name)
        case .unusedPassword(let domain, let userName):
            try await manager.reportUnusedPasswordCredential(domain: domain, username: userName)
        }
    }

    /// The server's preferences that the platform request can carry.
    private static func apply(_ options: PublicKeyCredentialCreationOptionsJSON, to request: ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest) {
        if let preference = options.authenticatorSelection?.userVerification {
            request.userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: preference)
        }
        // The account's existing passkeys, so that the platform does not make a second one.
        request.excludedCredentials = (options.excludeCredentials ?? []).map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: Data($0.id.bytes)) }
    }

    /// Runs the request and turns the platform's errors into the SDK's.
    @MainActor
    private func perform(_ request: ASAuthorizationRequest, mode: PresentationMode, creating: Bool) async throws -> AuthorizationOutcome {
        do {
            return try await AuthorizationBridge(anchor: anchor).perform(request, mode: mode)
        } catch let error as ASAuthorizationError {
            throw Self.translate(error, creating: creating)
        }
    }

    static func translate(_ error: ASAuthorizationError, creating: Bool) -> LatchkeyAPIError {
        if #available(iOS 26.0, macOS 26.0, visionOS 26.0, *) {
            if error.code == .deviceNotConfiguredForPasskeyCreation {
                return LatchkeyAPIError(status: nil, code: .deviceNotConfigured, detail: "this device cannot create a passkey now (is a passcode set?)")
            }
            if error.code == .preferSignInWithApple {
                return LatchkeyAPIError(status: nil, code: .preferSignInWithApple, detail: "the person has an account through Sign in with Apple")
            }
        }
        switch error.code {
        case .canceled:
            return LatchkeyAPIError(status: nil, code: .cancelled, detail: "the person dismissed the sheet")
        case .notInteractive where !creating:
            return LatchkeyAPIError(status: nil, code: .noCredential, detail: "no passkey for this app is at hand on this device")
        case .matchedExcludedCredential:
            return LatchkeyAPIError(status: nil, code: .passkeyExists, detail: "this device already holds a passkey for the account")
        default:
            return LatchkeyAPIError(status: nil, code: .passkeyFailed, detail: "AuthenticationServices failed (code \(error.code.rawValue))")
        }
    }

    /// Given and family name, as the account's display name.
    private static func fullName(_ name: PersonNameComponents) -> String {
        [name.givenName, name.familyName].compactMap { $0 }.joined(separator: " ")
    }

    /// The platform's registration in the WebAuthn JSON the server reads.
    static func registration(_ created: ASAuthorizationPlatformPublicKeyCredentialRegistration) -> RegistrationResponseJSON {
        RegistrationResponseJSON(
            id: Base64URL.encode([UInt8](created.credentialID)), rawId: Base64URLBytes(created.credentialID),
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URLBytes(created.rawClientDataJSON), attestationObject: Base64URLBytes(created.rawAttestationObject ?? Data()),
                transports: ["internal", "hybrid"]
            ),
            authenticatorAttachment: created.attachment == .crossPlatform ? "cross-platform" : "platform"
        )
    }
}

/// The report calls that `ASCredentialDataManager` (26.2+) and `ASCredentialUpdater`
/// (26.0–26.1) both have, under one name: the two classes share no protocol.
protocol CredentialReports {
    func reportUnknownPublicKeyCredential(relyingPartyIdentifier: String, credentialID: Data) async throws
    func reportAllAcceptedPublicKeyCredentials(relyingPartyIdentifier: String, userHandle: Data, acceptedCredentialIDs: [Data]) async throws
    func reportPublicKeyCredentialUpdate(relyingPartyIdentifier: String, userHandle: Data, newName: String) async throws
    func reportUnusedPasswordCredential(domain: String, username: String) async throws
}

@available(iOS 26.2, macOS 26.2, visionOS 26.2, *)
extension ASCredentialDataManager: CredentialReports {}

@available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
extension ASCredentialUpdater: CredentialReports {}
