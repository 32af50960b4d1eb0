public import Foundation
import LatchkeyWire
import WebAuthn

/// Users as Keycloak's realm export writes them (`kc.sh export`: `{"realm", "users": […]}`,
/// or the users array alone, or NDJSON), with their `password` credentials (PBKDF2 and Argon2,
/// rewritten here in the PHC form) and their `webauthn` and `webauthn-passwordless` credentials. A user
/// keeps their ID, and their passkeys the user handle Keycloak gave them: the UTF-8 bytes of
/// that ID.
public enum KeycloakRealmFile {
    /// The file's records; `firstLine` numbers the lines of a part of a file.
    public static func records(_ data: Data, firstLine: Int = 1) -> [Result<ImportRecord, UnreadableRecord>] {
        // A realm file holds its users under `users`.
        ExportFile.records(data, listedUnder: "users", firstLine: firstLine, record)
    }

    private static func record(_ user: ExportFile.Object, position: Int) -> Result<ImportRecord, UnreadableRecord> {
        guard let id = ExportFile.text(user["id"]) else { return .failure(UnreadableRecord(position: position, sourceID: nil, reason: "the user has no id")) }
        let given = ExportFile.text(user["firstName"])
        let family = ExportFile.text(user["lastName"])
        let profile = UserProfile(
            email: ExportFile.text(user["email"]), username: ExportFile.text(user["username"]),
            name: [given, family].compactMap { $0 }.joined(separator: " ").nilIfEmpty, givenName: given, familyName: family
        )
        var record = ImportRecord(
            sourceID: id, userID: UserID(uuid: id), profile: profile, isEmailVerified: user["emailVerified"] as? Bool ?? false,
            isDisabled: (user["enabled"] as? Bool) == false,
            createdAt: (user["createdTimestamp"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue / 1000) },
            userHandle: Array(id.utf8)
        )
        // Keycloak's IDs are UUIDs unless a realm was imported into it with others.
        if record.userID == nil { record.externalID = id }
        record.metadata = ExportFile.objectText(user["attributes"])
        for credential in user["credentials"] as? [ExportFile.Object] ?? [] {
            // Both parts are JSON written into a string.
            let data = (credential["credentialData"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? ExportFile.Object ?? [:]
            let secret = (credential["secretData"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? ExportFile.Object ?? [:]
            switch credential["type"] as? String {
            case "password":
                let algorithm = ExportFile.text(data["algorithm"]) ?? "pbkdf2-sha256"
                if let hash = phc(algorithm: algorithm, iterations: data["hashIterations"], parameters: data["additionalParameters"], secret: secret),
                    ImportedPasswordHash.scheme(of: hash) != nil
                {
                    record.passwordHash = hash
                } else {
                    record.notes.append("its password hash (\(algorithm)) is in a form this server does not verify: imported without a password; recovery or an enrollment link brings the person in")
                }
            case "webauthn", "webauthn-passwordless":
                guard let credentialID = ExportFile.bytes(data["credentialId"]), !credentialID.isEmpty,
                    let publicKey = ExportFile.bytes(data["credentialPublicKey"]), !publicKey.isEmpty
                else {
                    return .failure(UnreadableRecord(position: position, sourceID: id, reason: "a WebAuthn credential has no credentialId or credentialPublicKey"))
                }
                record.passkeys.append(ImportedPasskey(
                    credentialID: credentialID, publicKey: publicKey, signCount: (data["counter"] as? NSNumber).map { UInt32(clamping: $0.int64Value) } ?? 0,
                    transports: data["transports"] as? [String] ?? [], aaguid: (data["aaguid"] as? String).flatMap { AAGUID(uuidString: $0) } ?? .zero,
                    name: ExportFile.text(credential["userLabel"]),
                    createdAt: (credential["createdDate"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue / 1000) }
                ))
            default:
                continue
            }
        }
        return .success(record)
    }

    /// Keycloak's PBKDF2 (`value` and `salt` in base64, the key as long as `value` is: 64
    /// bytes in every variant) and Argon2 (its parameters under `additionalParameters`, each a
    /// list of one string) in the PHC form the verifier reads; `nil` for other algorithms.
    private static func phc(algorithm: String, iterations: Any?, parameters: Any?, secret: ExportFile.Object) -> String? {
        guard let key = ExportFile.bytes(secret["value"]), let salt = ExportFile.bytes(secret["salt"]) else { return nil }
        let rounds = (iterations as? NSNumber)?.intValue
        let parts = "\(PasswordHasher.base64(salt))$\(PasswordHasher.base64(key))"
        switch algorithm {
        case "pbkdf2", "pbkdf2-sha256", "pbkdf2-sha512":
            guard let rounds else { return nil }
            let function = algorithm == "pbkdf2" ? "sha1" : String(algorithm.dropFirst("pbkdf2-".count))
            return "$pbkdf2-\(function)$i=\(rounds),l=\(key.count)$\(parts)"
        case "argon2":
            // Keycloak's defaults where a parameter is left out: Argon2id 1.3, 7 MiB, 5 passes, 1 lane.
            let parameters = parameters as? ExportFile.Object ?? [:]
            func value(_ name: String) -> String? {
                let raw = (parameters[name] as? [Any])?.first ?? parameters[name]
                return (raw as? String) ?? (raw as? NSNumber)?.stringValue
            }
            let version = switch value("version") ?? "1.3" {
            case "1.3": 19
            case "1.0": 16
            default: 0
            }
            guard version != 0, let memory = Int(value("memory") ?? "7168"), let lanes = Int(value("parallelism") ?? "1") else { return nil }
            return "$argon2\(value("type") ?? "id")$v=\(version)$m=\(memory),t=\(rounds ?? 5),p=\(lanes)$\(parts)"
        default:
            return nil
        }
    }
}
