// The AuthenticationServices API surface LatchkeyAuthenticationServices uses, declared for
// Linux so that the glue compiles and runs in tests here. Each declaration names its Apple
// documentation page. What Apple's framework does (sheets, the keychain, credential
// managers) is played by `ShimAuthorization.handler`, which tests set.
import Crypto
import Foundation

/// https://developer.apple.com/documentation/authenticationservices/aspresentationanchor
/// (`UIWindow` on iOS, `NSWindow` on macOS: main-actor classes, so Sendable).
public typealias ASPresentationAnchor = ShimWindow

/// Shim only: the window sheets attach to.
open class ShimWindow: NSObject, @unchecked Sendable {}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationrequest
open class ASAuthorizationRequest: NSObject {}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcredential
public protocol ASAuthorizationCredential: AnyObject {}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialuserverificationpreference
public struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let preferred = Self(rawValue: "preferred")
    public static let required = Self(rawValue: "required")
    public static let discouraged = Self(rawValue: "discouraged")
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialattachment
public enum ASAuthorizationPublicKeyCredentialAttachment: Int, Sendable {
    case platform = 0
    case crossPlatform = 1
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialdescriptor
public final class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialdescriptor/credentialid
    public var credentialID: Data
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialdescriptor/init(credentialid:)
    public init(credentialID: Data) { self.credentialID = credentialID }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider
public final class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider/relyingpartyidentifier
    public let relyingPartyIdentifier: String

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider/init(relyingpartyidentifier:)
    public init(relyingPartyIdentifier: String) { self.relyingPartyIdentifier = relyingPartyIdentifier }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider/createcredentialregistrationrequest(challenge:name:userid:)
    public func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data) -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest(relyingPartyIdentifier: relyingPartyIdentifier, challenge: challenge, name: name, userID: userID)
    }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider/createcredentialregistrationrequest(challenge:name:userid:requeststyle:)
    public func createCredentialRegistrationRequest(
        challenge: Data, name: String, userID: Data, requestStyle: ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest.RequestStyle
    ) -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        let request = createCredentialRegistrationRequest(challenge: challenge, name: name, userID: userID)
        request.requestStyle = requestStyle
        return request
    }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider/createcredentialassertionrequest(challenge:)
    public func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        ASAuthorizationPlatformPublicKeyCredentialAssertionRequest(relyingPartyIdentifier: relyingPartyIdentifier, challenge: challenge)
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistrationrequest
public final class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistrationrequest/requeststyle-swift.enum
    public enum RequestStyle: Int, Sendable {
        case standard = 0
        case conditional = 1
    }

    public let relyingPartyIdentifier: String
    public var challenge: Data
    public var name: String
    public var userID: Data
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialregistrationrequest/displayname
    public var displayName: String?
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialregistrationrequest/userverificationpreference
    public var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference.preferred
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistrationrequest/excludedcredentials
    public var excludedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistrationrequest/requeststyle-swift.property
    public var requestStyle = RequestStyle.standard

    init(relyingPartyIdentifier: String, challenge: Data, name: String, userID: Data) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.challenge = challenge
        self.name = name
        self.userID = userID
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertionrequest
public final class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    public let relyingPartyIdentifier: String
    public var challenge: Data
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertionrequest/allowedcredentials
    public var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertionrequest/userverificationpreference
    public var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference.preferred
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertionrequest/prf
    public var prf: ASAuthorizationPublicKeyCredentialPRFAssertionInput?

    init(relyingPartyIdentifier: String, challenge: Data) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.challenge = challenge
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialprfassertioninput-swift.struct
public struct ASAuthorizationPublicKeyCredentialPRFAssertionInput: Sendable {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialprfassertioninput-swift.struct/inputvalues-swift.struct
    public struct InputValues: Sendable {
        public let saltInput1: Data
        public let saltInput2: Data?

        /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialprfassertioninput-swift.struct/inputvalues-swift.struct/saltinput1(_:saltinput2:)
        public static func saltInput1(_ saltInput1: Data, saltInput2: Data? = nil) -> InputValues {
            InputValues(saltInput1: saltInput1, saltInput2: saltInput2)
        }
    }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialprfassertioninput-swift.struct/inputvalues-swift.property
    public let inputValues: InputValues?
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialprfassertioninput-swift.struct/percredentialinputvalues-swift.property
    public let perCredentialInputValues: [Data: InputValues]?

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialprfassertioninput-swift.struct/inputvalues(_:percredentialinputvalues:)
    public static func inputValues(_ inputValues: InputValues, perCredentialInputValues: [Data: InputValues]? = nil) -> Self {
        Self(inputValues: inputValues, perCredentialInputValues: perCredentialInputValues)
    }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialprfassertioninput-swift.struct/percredentialinputvalues(_:)
    public static func perCredentialInputValues(_ perCredentialInputValues: [Data: InputValues]) -> Self {
        Self(inputValues: nil, perCredentialInputValues: perCredentialInputValues)
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialprfassertionoutput-swift.struct
public struct ASAuthorizationPublicKeyCredentialPRFAssertionOutput: Sendable {
    public let first: SymmetricKey
    public let second: SymmetricKey?

    public init(first: SymmetricKey, second: SymmetricKey?) {
        self.first = first
        self.second = second
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistration
public final class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationCredential {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialregistration/rawattestationobject
    public let rawAttestationObject: Data?
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialregistration/rawclientdatajson
    public let rawClientDataJSON: Data
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialregistration/credentialid
    public let credentialID: Data
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistration/attachment
    public let attachment: ASAuthorizationPublicKeyCredentialAttachment

    /// Shim only: what the platform would have produced.
    public init(credentialID: Data, rawClientDataJSON: Data, rawAttestationObject: Data?, attachment: ASAuthorizationPublicKeyCredentialAttachment = .platform) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAttestationObject = rawAttestationObject
        self.attachment = attachment
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertion
public final class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationCredential {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertion/rawauthenticatordata
    public let rawAuthenticatorData: Data!
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertion/signature
    public let signature: Data!
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertion/userid
    public let userID: Data!
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertion/rawclientdatajson
    public let rawClientDataJSON: Data
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertion/credentialid
    public let credentialID: Data
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertion/attachment
    public let attachment: ASAuthorizationPublicKeyCredentialAttachment
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertion/prf
    public let prf: ASAuthorizationPublicKeyCredentialPRFAssertionOutput?

    /// Shim only: what the platform would have produced.
    public init(
        credentialID: Data, rawClientDataJSON: Data, rawAuthenticatorData: Data, signature: Data, userID: Data,
        attachment: ASAuthorizationPublicKeyCredentialAttachment = .platform, prf: ASAuthorizationPublicKeyCredentialPRFAssertionOutput? = nil
    ) {
        self.prf = prf
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAuthenticatorData = rawAuthenticatorData
        self.signature = signature
        self.userID = userID
        self.attachment = attachment
    }
}

/// https://developer.apple.com/documentation/authenticationservices/ascontactidentifierrequest
public enum ASContactIdentifierRequest: Hashable, Sendable, Codable {
    case email
    case phoneNumber
}

/// https://developer.apple.com/documentation/authenticationservices/asemailidentifier
public struct ASEmailIdentifier: Sendable {
    /// https://developer.apple.com/documentation/authenticationservices/asemailidentifier/value
    public var value: String
    /// Shim only.
    public init(value: String) { self.value = value }
}

/// https://developer.apple.com/documentation/authenticationservices/asphonenumberidentifier
public struct ASPhoneNumberIdentifier: Sendable {
    /// https://developer.apple.com/documentation/authenticationservices/asphonenumberidentifier/value
    public var value: String
    /// Shim only.
    public init(value: String) { self.value = value }
}

/// https://developer.apple.com/documentation/authenticationservices/ascontactidentifier
public enum ASContactIdentifier: Sendable {
    case email(ASEmailIdentifier)
    case phoneNumber(ASPhoneNumberIdentifier)
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationaccountcreationprovider
public final class ASAuthorizationAccountCreationProvider: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationaccountcreationprovider/init()
    override public init() {}

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationaccountcreationprovider/createplatformpublickeycredentialregistrationrequest(acceptedcontactidentifiers:shouldrequestname:relyingpartyidentifier:challenge:userid:)
    public func createPlatformPublicKeyCredentialRegistrationRequest(
        acceptedContactIdentifiers: [ASContactIdentifierRequest], shouldRequestName: Bool, relyingPartyIdentifier: String, challenge: Data, userID: Data
    ) -> ASAuthorizationAccountCreationPlatformPublicKeyCredentialRequest {
        ASAuthorizationAccountCreationPlatformPublicKeyCredentialRequest(
            acceptedContactIdentifiers: acceptedContactIdentifiers, shouldRequestName: shouldRequestName,
            relyingPartyIdentifier: relyingPartyIdentifier, challenge: challenge, userID: userID
        )
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationaccountcreationplatformpublickeycredentialrequest
public final class ASAuthorizationAccountCreationPlatformPublicKeyCredentialRequest: ASAuthorizationRequest {
    public let acceptedContactIdentifiers: [ASContactIdentifierRequest]
    public let shouldRequestName: Bool
    public let relyingPartyIdentifier: String
    public let challenge: Data
    public let userID: Data

    init(acceptedContactIdentifiers: [ASContactIdentifierRequest], shouldRequestName: Bool, relyingPartyIdentifier: String, challenge: Data, userID: Data) {
        self.acceptedContactIdentifiers = acceptedContactIdentifiers
        self.shouldRequestName = shouldRequestName
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.challenge = challenge
        self.userID = userID
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationaccountcreationplatformpublickeycredential
public final class ASAuthorizationAccountCreationPlatformPublicKeyCredential: NSObject, ASAuthorizationCredential {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationaccountcreationplatformpublickeycredential/contactidentifier
    public let contactIdentifier: ASContactIdentifier
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationaccountcreationplatformpublickeycredential/name
    public let name: PersonNameComponents?
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationaccountcreationplatformpublickeycredential/credentialregistration
    public let credentialRegistration: ASAuthorizationPlatformPublicKeyCredentialRegistration

    /// Shim only.
    public init(contactIdentifier: ASContactIdentifier, name: PersonNameComponents?, credentialRegistration: ASAuthorizationPlatformPublicKeyCredentialRegistration) {
        self.contactIdentifier = contactIdentifier
        self.name = name
        self.credentialRegistration = credentialRegistration
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorization
public final class ASAuthorization: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorization/credential
    public let credential: any ASAuthorizationCredential
    /// Shim only.
    public init(credential: any ASAuthorizationCredential) { self.credential = credential }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationerror
public struct ASAuthorizationError: Error, Sendable {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationerror/code
    public enum Code: Int, Sendable {
        case unknown = 1000
        case canceled = 1001
        case invalidResponse = 1002
        case notHandled = 1003
        case failed = 1004
        case notInteractive = 1005
        case matchedExcludedCredential = 1006
        case credentialImport = 1007
        case credentialExport = 1008
        case preferSignInWithApple = 1009
        case deviceNotConfiguredForPasskeyCreation = 1010
    }

    public let code: Code
    /// Shim only.
    public init(_ code: Code) { self.code = code }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate
public protocol ASAuthorizationControllerDelegate: AnyObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate/authorizationcontroller(controller:didcompletewithauthorization:)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate/authorizationcontroller(controller:didcompletewitherror:)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerpresentationcontextproviding
public protocol ASAuthorizationControllerPresentationContextProviding: AnyObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerpresentationcontextproviding/presentationanchor(for:)
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller
public final class ASAuthorizationController: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/requestoptions
    public struct RequestOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/requestoptions/preferimmediatelyavailablecredentials
        public static let preferImmediatelyAvailableCredentials = RequestOptions(rawValue: 1)
    }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/authorizationrequests
    public let authorizationRequests: [ASAuthorizationRequest]
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/delegate
    public weak var delegate: (any ASAuthorizationControllerDelegate)?
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/presentationcontextprovider
    public weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/init(authorizationrequests:)
    public init(authorizationRequests: [ASAuthorizationRequest]) { self.authorizationRequests = authorizationRequests }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/performrequests()
    public func performRequests() { run(.modal) }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/performrequests(options:)
    public func performRequests(options: RequestOptions) { run(options.contains(.preferImmediatelyAvailableCredentials) ? .immediate : .modal) }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/performautofillassistedrequests()
    public func performAutoFillAssistedRequests() { run(.autoFill) }

    private func run(_ mode: ShimAuthorization.Mode) {
        _ = presentationContextProvider?.presentationAnchor(for: self)
        guard let handler = ShimAuthorization.handler else {
            delegate?.authorizationController(controller: self, didCompleteWithError: ASAuthorizationError(.notHandled))
            return
        }
        switch handler(authorizationRequests, mode) {
        case .success(let authorization): delegate?.authorizationController(controller: self, didCompleteWithAuthorization: authorization)
        case .failure(let error): delegate?.authorizationController(controller: self, didCompleteWithError: error)
        }
    }
}

/// https://developer.apple.com/documentation/authenticationservices/ascredentialupdater
public final class ASCredentialUpdater: Sendable {
    public init() {}
    /// https://developer.apple.com/documentation/authenticationservices/ascredentialupdater/reportunknownpublickeycredential(relyingpartyidentifier:credentialid:)
    public func reportUnknownPublicKeyCredential(relyingPartyIdentifier: String, credentialID: Data) async throws {
        try ShimAuthorization.record(.init(api: "ASCredentialUpdater", method: "reportUnknownPublicKeyCredential", relyingParty: relyingPartyIdentifier, values: [credentialID]))
    }
    /// https://developer.apple.com/documentation/authenticationservices/ascredentialupdater/reportallacceptedpublickeycredentials(relyingpartyidentifier:userhandle:acceptedcredentialids:)
    public func reportAllAcceptedPublicKeyCredentials(relyingPartyIdentifier: String, userHandle: Data, acceptedCredentialIDs: [Data]) async throws {
        try ShimAuthorization.record(.init(api: "ASCredentialUpdater", method: "reportAllAcceptedPublicKeyCredentials", relyingParty: relyingPartyIdentifier, values: [userHandle] + acceptedCredentialIDs))
    }
    /// https://developer.apple.com/documentation/authenticationservices/ascredentialupdater/reportpublickeycredentialupdate(relyingpartyidentifier:userhandle:newname:)
    public func reportPublicKeyCredentialUpdate(relyingPartyIdentifier: String, userHandle: Data, newName: String) async throws {
        try ShimAuthorization.record(.init(api: "ASCredentialUpdater", method: "reportPublicKeyCredentialUpdate", relyingParty: relyingPartyIdentifier, values: [userHandle, Data(newName.utf8)]))
    }
    /// https://developer.apple.com/documentation/authenticationservices/ascredentialupdater/reportunusedpasswordcredential(domain:username:)
    public func reportUnusedPasswordCredential(domain: String, username: String) async throws {
        try ShimAuthorization.record(.init(api: "ASCredentialUpdater", method: "reportUnusedPasswordCredential", relyingParty: domain, values: [Data(username.utf8)]))
    }
}

/// https://developer.apple.com/documentation/authenticationservices/ascredentialdatamanager
public final class ASCredentialDataManager: Sendable {
    public init() {}
    /// https://developer.apple.com/documentation/authenticationservices/ascredentialdatamanager/reportunknownpublickeycredential(relyingpartyidentifier:credentialid:)
    public func reportUnknownPublicKeyCredential(relyingPartyIdentifier: String, credentialID: Data) async throws {
        try ShimAuthorization.record(.init(api: "ASCredentialDataManager", method: "reportUnknownPublicKeyCredential", relyingParty: relyingPartyIdentifier, values: [credentialID]))
    }
    /// https://developer.apple.com/documentation/authenticationservices/ascredentialdatamanager/reportallacceptedpublickeycredentials(relyingpartyidentifier:userhandle:acceptedcredentialids:)
    public func reportAllAcceptedPublicKeyCredentials(relyingPartyIdentifier: String, userHandle: Data, acceptedCredentialIDs: [Data]) async throws {
        try ShimAuthorization.record(.init(api: "ASCredentialDataManager", method: "reportAllAcceptedPublicKeyCredentials", relyingParty: relyingPartyIdentifier, values: [userHandle] + acceptedCredentialIDs))
    }
    /// https://developer.apple.com/documentation/authenticationservices/ascredentialdatamanager/reportpublickeycredentialupdate(relyingpartyidentifier:userhandle:newname:)
    public func reportPublicKeyCredentialUpdate(relyingPartyIdentifier: String, userHandle: Data, newName: String) async throws {
        try ShimAuthorization.record(.init(api: "ASCredentialDataManager", method: "reportPublicKeyCredentialUpdate", relyingParty: relyingPartyIdentifier, values: [userHandle, Data(newName.utf8)]))
    }
    /// https://developer.apple.com/documentation/authenticationservices/ascredentialdatamanager/reportunusedpasswordcredential(domain:username:)
    public func reportUnusedPasswordCredential(domain: String, username: String) async throws {
        try ShimAuthorization.record(.init(api: "ASCredentialDataManager", method: "reportUnusedPasswordCredential", relyingParty: domain, values: [Data(username.utf8)]))
    }
}

// MARK: - Shim only: what tests control

/// The platform's side, played by tests: the handler answers each `performRequests` as the
/// system sheet would, and the reports are recorded.
public enum ShimAuthorization {
    /// How the controller was asked to present.
    public enum Mode: Sendable, Hashable {
        case modal, immediate, autoFill
    }

    /// One call of a credential-manager report method.
    public struct Report: Sendable, Hashable {
        public let api: String
        public let method: String
        public let relyingParty: String
        public let values: [Data]
    }

    nonisolated(unsafe) public static var handler: (([ASAuthorizationRequest], Mode) -> Result<ASAuthorization, ASAuthorizationError>)?
    nonisolated(unsafe) private static var recorded: [Report] = []
    private static let lock = NSLock()

    /// The reports made so far.
    public static var reports: [Report] { lock.withLock { recorded } }

    static func record(_ report: Report) throws {
        lock.withLock { recorded.append(report) }
    }
}
