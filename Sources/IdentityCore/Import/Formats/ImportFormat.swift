public import Foundation

/// The identity servers whose export files Latchkey imports, by the names the command line
/// and the Admin API take (`latchkey import kratos`, `?format=kratos`).
public enum ImportFormat: String, Sendable, CaseIterable {
    case kratos, keycloak, auth0

    /// The file's records, as this server writes them; `firstLine` numbers the lines of a
    /// part of a file.
    public func records(_ data: Data, firstLine: Int = 1) -> [Result<ImportRecord, UnreadableRecord>] {
        switch self {
        case .kratos: KratosIdentityFile.records(data, firstLine: firstLine)
        case .keycloak: KeycloakRealmFile.records(data, firstLine: firstLine)
        case .auth0: Auth0UserFile.records(data, firstLine: firstLine)
        }
    }
}
