import AuthenticationServicesShim
import Authenticator
import Crypto
import Foundation
import LatchkeyClient
import WebAuthn

/// The platform's half of AuthenticationServices for the shim: the system sheet answered by
/// the software authenticator, so that what the glue sends is real WebAuthn that a real
/// server verifies. It records what the glue asked for.
final class FakeApplePlatform: @unchecked Sendable {
    private let lock = NSLock()
    private let authenticator = SoftwareAuthenticator(createsSyncedCredentials: true)
    private var credentials: [SoftwareCredential] = []
    private var requests: [(ASAuthorizationRequest, ShimAuthorization.Mode)] = []
    /// The identifier and name the account creation sheet returns.
    var contact = ASContactIdentifier.email(ASEmailIdentifier(value: "ada@example.com"))
    var name: PersonNameComponents? = PersonNameComponents(givenName: "Ada", familyName: "Lovelace")
    /// The error the next request fails with, once.
    var nextError: ASAuthorizationError.Code?
    /// Whether conditional registrations are declined, as when the password was not just used.
    var declinesConditional = false
    /// Whether the sheet's passkey is on another device (a phone over hybrid).
    var isAnotherDevice = false

    init() {
        ShimAuthorization.handler = { [unowned self] requests, mode in self.answer(requests, mode) }
        ShimKeychain.reset()
    }

    deinit { ShimAuthorization.handler = nil }

    /// Another device of the same person: its credential manager holds none of the passkeys.
    func switchDevice() { lock.withLock { credentials.removeAll() } }

    /// Every request the glue made, with how it presented.
    var performed: [(ASAuthorizationRequest, ShimAuthorization.Mode)] { lock.withLock { requests } }
    /// The passkeys on the "device".
    var passkeyCount: Int { lock.withLock { credentials.count } }

    private func answer(_ all: [ASAuthorizationRequest], _ mode: ShimAuthorization.Mode) -> Result<ASAuthorization, ASAuthorizationError> {
        lock.withLock {
            let request = all[0]
            requests.append((request, mode))
            if let code = nextError {
                nextError = nil
                return .failure(ASAuthorizationError(code))
            }
            do {
                switch request {
                case let creation as ASAuthorizationAccountCreationPlatformPublicKeyCredentialRequest:
                    let identifier: String
                    switch contact {
                    case .email(let email): identifier = email.value
                    case .phoneNumber(let number): identifier = number.value
                    }
                    let registration = try register(
                        relyingPartyID: creation.relyingPartyIdentifier, challenge: creation.challenge, userID: creation.userID, name: identifier, excluded: []
                    )
                    return .success(ASAuthorization(credential: ASAuthorizationAccountCreationPlatformPublicKeyCredential(
                        contactIdentifier: contact, name: creation.shouldRequestName ? name : nil, credentialRegistration: registration
                    )))
                case let registration as ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest:
                    if registration.requestStyle == .conditional && declinesConditional { return .failure(ASAuthorizationError(.failed)) }
                    let excluded = Set(registration.excludedCredentials.map { [UInt8]($0.credentialID) })
                    guard !credentials.contains(where: { excluded.contains($0.credentialID) }) else { return .failure(ASAuthorizationError(.matchedExcludedCredential)) }
                    return .success(ASAuthorization(credential: try register(
                        relyingPartyID: registration.relyingPartyIdentifier, challenge: registration.challenge, userID: registration.userID,
                        name: registration.name, excluded: excluded
                    )))
                case let assertion as ASAuthorizationPlatformPublicKeyCredentialAssertionRequest:
                    let allowed = Set(assertion.allowedCredentials.map { [UInt8]($0.credentialID) })
                    guard let index = credentials.indices.last(where: {
                        credentials[$0].relyingPartyID == assertion.relyingPartyIdentifier && (allowed.isEmpty || allowed.contains(credentials[$0].credentialID))
                    }) else {
                        // Nothing at hand: an immediate request shows nothing; a sheet is dismissed.
                        return .failure(ASAuthorizationError(mode == .immediate ? .notInteractive : .canceled))
                    }
                    let options = PublicKeyCredentialRequestOptionsJSON(
                        challenge: Base64URLBytes(assertion.challenge), rpId: assertion.relyingPartyIdentifier,
                        extensions: assertion.prf.map { ExtensionInputs(prf: Self.prfInputs($0)) }
                    )
                    let json = try authenticator.getAssertion(options, caller: .appleApp(relyingPartyID: assertion.relyingPartyIdentifier), credential: &credentials[index])
                    return .success(ASAuthorization(credential: ASAuthorizationPlatformPublicKeyCredentialAssertion(
                        credentialID: Data(json.rawId.bytes), rawClientDataJSON: Data(json.response.clientDataJSON.bytes),
                        rawAuthenticatorData: Data(json.response.authenticatorData.bytes), signature: Data(json.response.signature.bytes),
                        userID: Data(json.response.userHandle?.bytes ?? []),
                        attachment: isAnotherDevice ? .crossPlatform : .platform,
                        prf: json.clientExtensionResults.prf?.results.map { results in
                            ASAuthorizationPublicKeyCredentialPRFAssertionOutput(
                                first: SymmetricKey(data: results.first.bytes), second: results.second.map { SymmetricKey(data: $0.bytes) }
                            )
                        }
                    )))
                default:
                    return .failure(ASAuthorizationError(.notHandled))
                }
            } catch {
                return .failure(ASAuthorizationError(.failed))
            }
        }
    }

    /// A new passkey as the platform makes it: clientDataJSON with the app's origin
    /// (`https://<rp id>`), a `none` attestation.
    private func register(relyingPartyID: String, challenge: Data, userID: Data, name: String, excluded: Set<[UInt8]>) throws -> ASAuthorizationPlatformPublicKeyCredentialRegistration {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: relyingPartyID, name: relyingPartyID), user: .init(id: Base64URLBytes(userID), name: name, displayName: name),
            challenge: Base64URLBytes(challenge), pubKeyCredParams: [.init(alg: .es256)]
        )
        let (json, credential) = try authenticator.makeCredential(options, caller: .appleApp(relyingPartyID: relyingPartyID))
        credentials.append(credential)
        return ASAuthorizationPlatformPublicKeyCredentialRegistration(
            credentialID: Data(json.rawId.bytes), rawClientDataJSON: Data(json.response.clientDataJSON.bytes),
            rawAttestationObject: Data(json.response.attestationObject.bytes)
        )
    }

    /// The PRF salts the provider set, as the software authenticator reads them.
    static func prfInputs(_ input: ASAuthorizationPublicKeyCredentialPRFAssertionInput) -> PRFInputs {
        func values(_ values: ASAuthorizationPublicKeyCredentialPRFAssertionInput.InputValues) -> PRFValues {
            PRFValues(first: Base64URLBytes(values.saltInput1), second: values.saltInput2.map { Base64URLBytes($0) })
        }
        let byCredential = input.perCredentialInputValues.map { entries in
            Dictionary(uniqueKeysWithValues: entries.map { (Base64URL.encode([UInt8]($0.key)), values($0.value)) })
        }
        return PRFInputs(eval: input.inputValues.map(values), evalByCredential: byCredential)
    }
}
