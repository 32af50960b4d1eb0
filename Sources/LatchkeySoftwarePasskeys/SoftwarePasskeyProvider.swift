public import Authenticator
public import Foundation
public import LatchkeyClient
import WebAuthn

/// The software authenticator as a ``PasskeyProvider``: passkeys as keys in memory (or in a
/// file), for Linux, tests and the command line. It never protects a real account: its keys
/// are as safe as the process and the file.
///
/// It plays the credential manager too: it answers the account creation API with the
/// contact and name it was given, declines an automatic upgrade when told to, and applies
/// the signals it receives (an unknown credential is forgotten, as a platform would hide it).
public final class SoftwarePasskeyProvider: PasskeyProvider, @unchecked Sendable {
    /// The RP ID its passkeys are for.
    public let relyingPartyID: String
    /// The page or app it acts for, which decides clientDataJSON's origin.
    public let caller: Caller
    /// The identifier it offers on the account creation sheet.
    public let contact: LatchkeyContact
    /// The name it offers on that sheet.
    public let name: String?
    /// The authenticator that makes the keys.
    public let authenticator: SoftwareAuthenticator
    /// When set, credentials are kept in this JSON file (mode 0600) between runs.
    public let storeURL: URL?
    /// The key algorithm of new passkeys; `nil` takes the first requested one it supports,
    /// preferring ES256.
    public let algorithm: COSEAlgorithmIdentifier?
    /// Called with the whole list after every change, to keep it somewhere other than
    /// ``storeURL`` (the command line keeps it beside its session).
    public let onChange: (@Sendable ([SoftwareCredential]) throws -> Void)?

    // Guarded by `lock`. NSLock rather than Mutex: the package admits iOS 17.
    private let lock = NSLock()
    private var credentialList: [SoftwareCredential]
    private var signals: [PasskeySignal] = []
    private var declines = false

    /// Creates a provider for a web origin.
    /// - Parameters:
    ///   - relyingPartyID: The RP ID, for example `localhost`.
    ///   - origin: The origin the ceremonies run at, for example `http://localhost:8080`.
    ///   - contact: The identifier offered for a new account.
    ///   - name: The name offered for a new account.
    ///   - authenticator: The authenticator; by default one that makes synced passkeys.
    ///   - storeURL: A file to keep the credentials in; `nil` keeps them in memory.
    public convenience init(
        relyingPartyID: String, origin: String, contact: LatchkeyContact, name: String? = nil,
        authenticator: SoftwareAuthenticator = SoftwareAuthenticator(createsSyncedCredentials: true), storeURL: URL? = nil
    ) throws {
        try self.init(relyingPartyID: relyingPartyID, caller: .webPage(origin: origin), contact: contact, name: name, authenticator: authenticator, storeURL: storeURL)
    }

    /// Creates a provider for any caller (a web page, an Android app, an Apple app).
    /// - Parameters:
    ///   - credentials: The passkeys it starts with, when there is no `storeURL`.
    ///   - algorithm: The key algorithm of new passkeys.
    ///   - onChange: Called with the whole list after every change.
    public init(
        relyingPartyID: String, caller: Caller, contact: LatchkeyContact, name: String? = nil,
        authenticator: SoftwareAuthenticator = SoftwareAuthenticator(createsSyncedCredentials: true), storeURL: URL? = nil,
        credentials: [SoftwareCredential] = [], algorithm: COSEAlgorithmIdentifier? = nil,
        onChange: (@Sendable ([SoftwareCredential]) throws -> Void)? = nil
    ) throws {
        self.algorithm = algorithm
        self.onChange = onChange
        self.relyingPartyID = relyingPartyID
        self.caller = caller
        self.contact = contact
        self.name = name
        self.authenticator = authenticator
        self.storeURL = storeURL
        if let storeURL, FileManager.default.fileExists(atPath: storeURL.path) {
            credentialList = try JSONDecoder().decode([SoftwareCredential].self, from: Data(contentsOf: storeURL))
        } else {
            credentialList = credentials
        }
    }

    /// The passkeys it holds.
    public var credentials: [SoftwareCredential] { lock.withLock { credentialList } }

    /// The signals it has received, oldest first.
    public var receivedSignals: [PasskeySignal] { lock.withLock { signals } }

    /// Whether it declines automatic upgrades (conditional create), as a platform does when the
    /// person has not used the password recently or turned the feature off.
    public var declinesAutomaticUpgrades: Bool {
        get { lock.withLock { declines } }
        set { lock.withLock { declines = newValue } }
    }

    public func createPasskey(_ request: PasskeyCreationRequest) async throws -> PasskeyCreation {
        if request.style == .conditional && declinesAutomaticUpgrades {
            throw LatchkeyAPIError(status: nil, code: .upgradeRefused, detail: "the software provider was told to decline automatic upgrades")
        }
        var options = request.options
        let contactText: String
        switch contact {
        case .email(let email): contactText = email
        case .phoneNumber(let number): contactText = number
        }
        if request.style == .accountCreation {
            // The sheet fills in what the person picked.
            options.user.name = contactText
            options.user.displayName = name ?? contactText
        }
        let (response, credential): (RegistrationResponseJSON, SoftwareCredential)
        do {
            (response, credential) = try authenticator.makeCredential(options, caller: caller, algorithm: algorithm)
        } catch {
            throw LatchkeyAPIError(status: nil, code: .passkeyFailed, detail: "\(error)")
        }
        try update { $0.append(credential) }
        return PasskeyCreation(
            response: response, contact: request.style == .accountCreation ? contact : nil,
            name: request.style == .accountCreation ? name : nil
        )
    }

    public func assertPasskey(_ request: PasskeyAssertionRequest) async throws -> AuthenticationResponseJSON {
        let relyingPartyID = request.options.rpId ?? self.relyingPartyID
        let allowed = Set((request.options.allowCredentials ?? []).map(\.id.bytes))
        // The newest usable passkey, as a sheet lists the most recent first.
        let found = lock.withLock { () -> (Int, SoftwareCredential)? in
            credentialList.indices.reversed()
                .first { credentialList[$0].relyingPartyID == relyingPartyID && (allowed.isEmpty || allowed.contains(credentialList[$0].credentialID)) }
                .map { ($0, credentialList[$0]) }
        }
        guard let (index, stored) = found else {
            throw LatchkeyAPIError(status: nil, code: .noCredential, detail: "the software provider holds no passkey for \(relyingPartyID)")
        }
        var credential = stored
        let response: AuthenticationResponseJSON
        do {
            response = try authenticator.getAssertion(request.options, caller: caller, credential: &credential)
        } catch {
            throw LatchkeyAPIError(status: nil, code: .passkeyFailed, detail: "\(error)")
        }
        // The counter moves whether or not the server accepts the assertion.
        try update { list in
            if list.indices.contains(index), list[index].credentialID == credential.credentialID { list[index] = credential }
        }
        return response
    }

    public func report(_ received: [PasskeySignal]) async throws {
        try update { list in
            for signal in received {
                switch signal {
                case .unknownCredential(let relyingPartyID, let credentialID):
                    list.removeAll { $0.relyingPartyID == relyingPartyID && $0.credentialID == credentialID.bytes }
                case .allAcceptedCredentials(let relyingPartyID, let userHandle, let accepted):
                    let keep = Set(accepted.map(\.bytes))
                    list.removeAll { $0.relyingPartyID == relyingPartyID && $0.userHandle == userHandle.bytes && !keep.contains($0.credentialID) }
                case .currentUserDetails(let relyingPartyID, let userHandle, let name, _):
                    for index in list.indices where list[index].relyingPartyID == relyingPartyID && list[index].userHandle == userHandle.bytes {
                        list[index].userName = name
                    }
                case .unusedPassword:
                    break  // No passwords here.
                }
            }
        }
        lock.withLock { signals.append(contentsOf: received) }
    }

    /// Changes the list and writes it to the store file, if any.
    private func update(_ change: (inout [SoftwareCredential]) -> Void) throws {
        // The lock is held through the write, so that two changes never reach the file in
        // the wrong order.
        lock.lock()
        defer { lock.unlock() }
        change(&credentialList)
        try onChange?(credentialList)
        guard let storeURL else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try FileTokenStore.writePrivately(try encoder.encode(credentialList), to: storeURL)
        } catch {
            throw LatchkeyAPIError(status: nil, code: .storeFailed, detail: "cannot write \(storeURL.path): \(error)")
        }
    }
}
