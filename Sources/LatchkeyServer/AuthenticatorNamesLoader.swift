import Foundation
import IdentityCore
import WebAuthn

/// Loads passkey provider names (the passkeydeveloper AAGUID list). The server ships a
/// copy; an operator may point `authenticator_names` at a newer one. Entries that do not
/// parse are skipped, and an empty object is a valid list.
enum AuthenticatorNamesLoader {
    private struct Entry: Decodable {
        let name: String
        let icon_light: String?
        let icon_dark: String?
    }

    static func load(file: String?) throws(ConfigurationError) -> AuthenticatorNames {
        let data: Data
        do {
            if let file {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } else if let url = Bundle.module.url(forResource: "passkey-provider-aaguids", withExtension: "json") {
                data = try Data(contentsOf: url)
            } else {
                return AuthenticatorNames([:])
            }
        } catch {
            throw ConfigurationError(key: "authenticator_names", "cannot read \(file ?? "the bundled list"): \(error.localizedDescription)")
        }
        guard let raw = try? JSONDecoder().decode([String: Entry].self, from: data) else {
            throw ConfigurationError(key: "authenticator_names", "\(file ?? "the bundled list") is not an object of AAGUID → {name, icon_light, icon_dark}")
        }
        var entries: [AAGUID: AuthenticatorNames.Entry] = [:]
        for (key, entry) in raw {
            guard let aaguid = AAGUID(uuidString: key) else { continue }
            entries[aaguid] = .init(name: entry.name, iconLight: entry.icon_light, iconDark: entry.icon_dark)
        }
        return AuthenticatorNames(entries)
    }
}
