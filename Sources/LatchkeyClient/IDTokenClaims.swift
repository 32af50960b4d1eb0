import Foundation
import LatchkeyWire

/// The ID token claims the SDK reads. The token arrives straight from the token endpoint over
/// the connection the app trusts, so its signature need not be checked here (OpenID Connect
/// Core §3.1.3.7, item 6); the claims only name who signed in.
struct IDTokenClaims: Decodable {
    let sub: String
    let email: String?
    let name: String?
    let authTime: Date?

    private enum CodingKeys: String, CodingKey {
        case sub, email, name
        case authTime = "auth_time"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sub = try container.decode(String.self, forKey: .sub)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        authTime = try container.decodeIfPresent(Int64.self, forKey: .authTime).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// The claims of a compact JWS, or `nil` when it is not one.
    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            let claims = try? JSONDecoder().decode(Self.self, from: Data(payload))
        else { return nil }
        self = claims
    }
}
