import Foundation
import WebAuthnCorpus

/// A CTAP2 authenticator simulated by Chromium for one tab (CDP's WebAuthn domain): it makes
/// discoverable credentials, verifies the user and answers without any prompt, so
/// `navigator.credentials` calls in the page complete on their own.
///
/// CDP reports credential ids in standard base64 with padding; WebAuthn's JSON uses unpadded
/// base64url. `base64URL(fromStandard:)` and `standardBase64(fromBase64URL:)` convert.
struct VirtualAuthenticator: Sendable {
    let tab: BrowserTab
    /// CDP's `authenticatorId`.
    let id: String
    let transport: String

    /// Adds an authenticator to `tab` (enabling the WebAuthn domain on first use). The options
    /// make a resident-key, user-verifying authenticator that approves automatically;
    /// `options` overrides or extends them (e.g. `["isUserVerified": .bool(false)]`).
    static func add(to tab: BrowserTab, transport: String = "internal", options: [String: JSONValue] = [:]) async throws -> VirtualAuthenticator {
        try await tab.enableWebAuthn()
        var merged: [String: JSONValue] = [
            "protocol": .string("ctap2"),
            "transport": .string(transport),
            "hasResidentKey": .bool(true),
            "hasUserVerification": .bool(true),
            "isUserVerified": .bool(true),
            "automaticPresenceSimulation": .bool(true),
        ]
        merged.merge(options) { _, override in override }
        let result = try await tab.send("WebAuthn.addVirtualAuthenticator", ["options": .object(merged)])
        guard let id = result["authenticatorId"]?.string else {
            throw TestFailure("WebAuthn.addVirtualAuthenticator returned no authenticatorId: \(result)")
        }
        return VirtualAuthenticator(tab: tab, id: id, transport: transport)
    }

    /// The credentials the authenticator holds, as CDP describes them: `credentialId`
    /// (standard base64), `isResidentCredential`, `rpId`, `privateKey`, `userHandle`,
    /// `signCount`, `userName`, `userDisplayName`, ...
    func credentials() async throws -> [JSONValue] {
        let result = try await tab.send("WebAuthn.getCredentials", ["authenticatorId": .string(id)])
        guard let credentials = result["credentials"]?.array else {
            throw TestFailure("WebAuthn.getCredentials returned no credentials list: \(result)")
        }
        return credentials
    }

    /// Installs a credential given as CDP's `Credential` object: `credentialId` (standard
    /// base64), `isResidentCredential`, `rpId`, `privateKey` (base64 PKCS#8), `userHandle`,
    /// `signCount`.
    func addCredential(_ credential: JSONValue) async throws {
        guard case .object = credential else { throw TestFailure("a credential must be a JSON object, not \(credential)") }
        _ = try await tab.send("WebAuthn.addCredential", ["authenticatorId": .string(id), "credential": credential])
    }

    /// Deletes one credential, identified by its standard-base64 `credentialId`.
    func removeCredential(id credentialID: String) async throws {
        _ = try await tab.send("WebAuthn.removeCredential", ["authenticatorId": .string(id), "credentialId": .string(credentialID)])
    }

    /// Makes user verification succeed or fail from now on.
    func setUserVerified(_ verified: Bool) async throws {
        _ = try await tab.send("WebAuthn.setUserVerified", ["authenticatorId": .string(id), "isUserVerified": .bool(verified)])
    }

    /// Detaches the authenticator from the tab.
    func remove() async throws {
        _ = try await tab.send("WebAuthn.removeVirtualAuthenticator", ["authenticatorId": .string(id)])
    }

    /// Waits for (and consumes) the next `method` event about this authenticator, e.g.
    /// "WebAuthn.credentialAdded", "WebAuthn.credentialAsserted", "WebAuthn.credentialUpdated"
    /// or "WebAuthn.credentialDeleted".
    func waitForEvent(
        _ method: String,
        timeout: Duration = .seconds(10),
        where predicate: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) async throws -> JSONValue {
        let id = id
        return try await tab.waitForEvent(method, timeout: timeout) { params in
            params["authenticatorId"]?.string == id && predicate(params)
        }
    }

    /// Padded standard base64 (CDP) to unpadded base64url (WebAuthn JSON).
    static func base64URL(fromStandard standard: String) -> String {
        String(standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").prefix { $0 != "=" })
    }

    /// Unpadded (or padded) base64url (WebAuthn JSON) to padded standard base64 (CDP).
    static func standardBase64(fromBase64URL url: String) -> String {
        var standard = url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return standard
    }
}
