import Foundation
package import HTTPTypes
package import IdentityCore

/// How an `IdentityError` is answered: its HTTP status and, for bearer-token errors, the
/// `WWW-Authenticate` challenge (RFC 6750 §3).
extension IdentityError {
    package var status: HTTPResponse.Status {
        switch reason {
        case .bodyTooLarge: return .contentTooLarge
        case .unsupportedMediaType: return .unsupportedMediaType
        default: break
        }
        switch code {
        case .invalidRequest, .unsupportedGrantType, .invalidPassword, .invalidScope: return .badRequest
        case .invalidClient, .invalidToken: return .unauthorized
        // Auth0 answers a refused grant with 403; clients written for it expect that.
        case .unauthorizedClient, .invalidGrant, .accessDenied, .insufficientScope: return .forbidden
        case .notFound: return .notFound
        case .conflict: return .conflict
        case .temporarilyUnavailable: return .serviceUnavailable
        case .tooManyRequests: return .tooManyRequests
        case .methodNotAllowed: return .methodNotAllowed
        }
    }

    package var bearerChallenge: String? {
        if case .insufficientUserAuthentication(let maxAge) = reason {
            return "Bearer error=\"insufficient_user_authentication\", error_description=\"\(message.replacingOccurrences(of: "\"", with: "'"))\", max_age=\(maxAge)"
        }
        switch code {
        case .invalidToken: return "Bearer error=\"invalid_token\", error_description=\"\(message.replacingOccurrences(of: "\"", with: "'"))\""
        case .insufficientScope: return "Bearer error=\"insufficient_scope\"\(reason.map { ", scope=\"\($0.rawValue)\"" } ?? "")"
        default: return nil
        }
    }
}

/// A failure found by the HTTP layer itself (body size, content type, JSON), expressed
/// in the same vocabulary as the services' errors.
enum RequestFailure {
    static func invalidRequest(_ message: String, field: String? = nil) -> IdentityError {
        IdentityError(.invalidRequest, message, field: field)
    }
}
