public import Foundation
import LatchkeyWire
import WebAuthn

/// Identities as Ory Kratos exports them (`GET /admin/identities` with
/// `include_credential=password,webauthn,passkey`, one array or NDJSON) and as Ory's import
/// documentation describes them: traits, verifiable addresses, state, and the `password`,
/// `webauthn` and `passkey` credentials. An identity keeps its UUID, so the Kratos face shows
/// the same ID apps stored.
public enum KratosIdentityFile {
    /// The file's records; `firstLine` numbers the lines of a part of a file.
    public static func records(_ data: Data, firstLine: Int = 1) -> [Result<ImportRecord, UnreadableRecord>] {
        ExportFile.records(data, firstLine: firstLine, record)
    }

    private static func record(_ identity: ExportFile.Object, position: Int) -> Result<ImportRecord, UnreadableRecord> {
        guard let id = ExportFile.text(identity["id"]) else {
            return .failure(UnreadableRecord(position: position, sourceID: nil, reason: "the identity has no id"))
        }
        guard let userID = UserID(uuid: id) else { return .failure(UnreadableRecord(position: position, sourceID: id, reason: "the identity's id is not a UUID")) }
        let traits = identity["traits"] as? ExportFile.Object ?? [:]
        var profile = UserProfile(
            email: ExportFile.text(traits["email"]), phoneNumber: ExportFile.text(traits["phone"]) ?? ExportFile.text(traits["phone_number"]),
            username: ExportFile.text(traits["username"])
        )
        // Kratos's example schemas write the name as text or as {first, last}.
        if let name = traits["name"] as? ExportFile.Object {
            profile.givenName = ExportFile.text(name["first"])
            profile.familyName = ExportFile.text(name["last"])
            profile.name = [profile.givenName, profile.familyName].compactMap { $0 }.joined(separator: " ").nilIfEmpty
        } else {
            profile.name = ExportFile.text(traits["name"])
        }
        let addresses = identity["verifiable_addresses"] as? [ExportFile.Object] ?? []
        let emailVerified = addresses.contains { address in
            (address["verified"] as? Bool) == true && (ExportFile.text(address["value"])?.lowercased() == profile.email?.lowercased())
        }
        var record = ImportRecord(
            sourceID: id, userID: userID, profile: profile, isEmailVerified: emailVerified, isDisabled: (identity["state"] as? String) == "inactive",
            createdAt: ExportFile.date(identity["created_at"])
        )
        record.externalID = ExportFile.text(identity["external_id"])
        record.metadata = ExportFile.objectText(identity["metadata_public"])
        let credentials = identity["credentials"] as? ExportFile.Object ?? [:]
        if let password = credentials["password"] as? ExportFile.Object, let config = password["config"] as? ExportFile.Object,
            let hash = ExportFile.text(config["hashed_password"])
        {
            if ImportedPasswordHash.scheme(of: hash) != nil {
                record.passwordHash = hash
            } else {
                // Named by its scheme alone: the hash itself never goes into a report.
                let scheme = switch hash.first {
                case "$": String(hash.dropFirst().prefix { $0 != "$" }.prefix(20))
                case "{": String(hash.dropFirst().prefix { $0 != "}" }.prefix(20))
                default: "unknown"
                }
                record.notes.append("its password hash (\(scheme)) is in a form this server does not verify: imported without a password; recovery or an enrollment link brings the person in")
            }
        }
        // Passkeys first: their user handle is the one discoverable sign-ins carry.
        for type in ["passkey", "webauthn"] {
            guard let credential = credentials[type] as? ExportFile.Object, let config = credential["config"] as? ExportFile.Object else { continue }
            if let handle = ExportFile.bytes(config["user_handle"]), !handle.isEmpty {
                if record.userHandle == nil {
                    record.userHandle = handle
                } else if record.userHandle != handle, config["credentials"] as? [ExportFile.Object] != nil {
                    // An account has one user handle here, and every assertion names it.
                    record.notes.append("its \(type) credentials were registered under another user handle than its passkeys, and an account keeps one: they are kept but will not sign in")
                }
            }
            for entry in config["credentials"] as? [ExportFile.Object] ?? [] {
                switch passkey(entry) {
                case .success(let passkey):
                    if !record.passkeys.contains(where: { $0.credentialID == passkey.credentialID }) { record.passkeys.append(passkey) }
                case .failure(let reason):
                    return .failure(UnreadableRecord(position: position, sourceID: id, reason: "\(type) credential: \(reason)"))
                }
            }
        }
        // Credentials Kratos registered before it kept a user handle name the identity by
        // its ID's 16 bytes.
        if record.userHandle == nil, !record.passkeys.isEmpty { record.userHandle = UUIDText.bytes(id) }
        return .success(record)
    }

    private struct Unreadable: Error { let reason: String }

    private static func passkey(_ entry: ExportFile.Object) -> Result<ImportedPasskey, Unreadable> {
        guard let credentialID = ExportFile.bytes(entry["id"]), !credentialID.isEmpty else { return .failure(Unreadable(reason: "no id in base64")) }
        guard let publicKey = ExportFile.bytes(entry["public_key"]), !publicKey.isEmpty else { return .failure(Unreadable(reason: "no public_key in base64")) }
        let authenticator = entry["authenticator"] as? ExportFile.Object ?? [:]
        let flags = entry["flags"] as? ExportFile.Object ?? [:]
        let aaguid = (authenticator["aaguid"] as? String).flatMap { AAGUID(uuidString: $0) }
            ?? ExportFile.bytes(authenticator["aaguid"]).flatMap { AAGUID(bytes: $0) } ?? .zero
        let signCount = (authenticator["sign_count"] as? NSNumber).map { UInt32(clamping: $0.int64Value) } ?? 0
        return .success(ImportedPasskey(
            credentialID: credentialID, publicKey: publicKey, signCount: signCount,
            transports: (entry["transport"] as? [String]) ?? (entry["transports"] as? [String]) ?? [], aaguid: aaguid,
            isBackupEligible: flags["backup_eligible"] as? Bool ?? false, isBackedUp: flags["backup_state"] as? Bool ?? false,
            name: ExportFile.text(entry["display_name"]), createdAt: ExportFile.date(entry["added_at"])
        ))
    }
}

extension String {
    /// `nil` for the empty string.
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
