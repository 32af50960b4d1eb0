public import Foundation
import LatchkeyWire

/// Users as Auth0's bulk import format writes them (one array, or NDJSON): `user_id`,
/// `email`, `email_verified`, names, `blocked`, and the password as bcrypt in `password_hash`
/// or as `custom_password_hash` (bcrypt, and PBKDF2 in PHC form); and as the password hash
/// export Auth0's support sends (`_id.$oid`, `alt_id`, `passwordHash`).
/// Auth0 keeps no passkey's key material in its exports, so people bring their passwords and
/// add passkeys here.
public enum Auth0UserFile {
    /// The file's records; `firstLine` numbers the lines of a part of a file.
    public static func records(_ data: Data, firstLine: Int = 1) -> [Result<ImportRecord, UnreadableRecord>] {
        ExportFile.records(data, firstLine: firstLine, record)
    }

    private static func record(_ user: ExportFile.Object, position: Int) -> Result<ImportRecord, UnreadableRecord> {
        // The bulk import format names the user `user_id` (or leaves it out: the email then);
        // the password hash export Auth0's support sends names it by `alt_id` or `_id.$oid`,
        // which Auth0 shows as `auth0|<that>`.
        let exportedID = ExportFile.text(user["alt_id"]) ?? ((user["_id"] as? ExportFile.Object).flatMap { ExportFile.text($0["$oid"]) })
        guard let id = ExportFile.text(user["user_id"]) ?? exportedID.map({ "auth0|" + $0 }) ?? ExportFile.text(user["email"]) else {
            return .failure(UnreadableRecord(position: position, sourceID: nil, reason: "the user has neither user_id nor email"))
        }
        let profile = UserProfile(
            email: ExportFile.text(user["email"]), phoneNumber: ExportFile.text(user["phone_number"]), username: ExportFile.text(user["username"]),
            name: ExportFile.text(user["name"]), givenName: ExportFile.text(user["given_name"]), familyName: ExportFile.text(user["family_name"]),
            nickname: ExportFile.text(user["nickname"]), picture: ExportFile.text(user["picture"])
        )
        var record = ImportRecord(
            sourceID: id, profile: profile, isEmailVerified: user["email_verified"] as? Bool ?? false, isDisabled: user["blocked"] as? Bool ?? false,
            createdAt: ExportFile.date(user["created_at"])
        )
        // Auth0's IDs (`auth0|…`, `google-oauth2|…`) are not IDs here; apps that stored them
        // find them as `external_id`. The bulk import format's `user_id` leaves out the
        // connection's prefix, which Auth0 adds (`auth0|` for a database connection); its
        // exports keep it.
        let userID = ExportFile.text(user["user_id"]).map { $0.contains("|") ? $0 : "auth0|" + $0 }
        record.externalID = userID ?? exportedID.map { "auth0|" + $0 }
        record.metadata = ExportFile.objectText(user["app_metadata"])
        if ExportFile.objectText(user["user_metadata"]) != nil {
            record.notes.append("its user_metadata is not kept (app_metadata is, as the account's metadata)")
        }
        let custom = user["custom_password_hash"] as? ExportFile.Object
        let hash = ExportFile.text(user["password_hash"]) ?? ExportFile.text(user["passwordHash"])
            ?? ((custom?["hash"] as? ExportFile.Object).flatMap { ExportFile.text($0["value"]) })
        if let hash {
            if ImportedPasswordHash.scheme(of: hash) != nil {
                record.passwordHash = hash
            } else {
                let algorithm = ExportFile.text(custom?["algorithm"]) ?? "unknown"
                record.notes.append("its password hash (\(algorithm)) is in a form this server does not verify: imported without a password; recovery or an enrollment link brings the person in")
            }
        }
        return .success(record)
    }
}
