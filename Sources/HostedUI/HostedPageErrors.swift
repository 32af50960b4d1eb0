public import FaceFrame
public import Hummingbird
public import IdentityCore
public import Logging

/// The hosted pages' JSON calls answer in the Authentication API's shape plus `field`, the
/// form field at fault, and with messages written for the person at the keyboard rather than
/// for a developer: the page shows each one next to its field.
public struct HostedPageErrors: FaceErrorRenderer {
    public init() {}

    private struct Body: Encodable {
        let error, error_description: String
        let reason, credential_id, field: String?
    }

    public func response(for failure: IdentityError) -> Response {
        let (field, message) = Self.human(failure)
        return JSONResponse.make(
            Body(error: failure.code.rawValue, error_description: message, reason: failure.reason?.rawValue, credential_id: failure.credentialID, field: field),
            status: failure.status
        )
    }

    public func unexpected(_ error: any Error, logger: Logger) -> Response {
        logger.error("unexpected error", metadata: ["error": "\(error)"])
        return JSONResponse.make(
            Body(error: "server_error", error_description: "Something went wrong on our side. Try again in a moment.", reason: nil, credential_id: nil, field: nil),
            status: .internalServerError
        )
    }

    /// The form field and the words for a failure.
    static func human(_ failure: IdentityError) -> (field: String?, message: String) {
        if case .userExists(let kind) = failure.reason {
            return (nil, "An account with this \(kind == .phoneNumber ? "phone number" : "email address") already exists.")
        }
        if failure.reason == .lastAuthenticationMethod {
            return (nil, "This is your only way to sign in. Add another passkey before you revoke this one.")
        }
        switch failure.field {
        case .profileMember("email"), .named("email"):
            return ("email", failure.reason == .required ? "Enter your email address." : "Enter an email address like name@example.com.")
        case .profileMember("phone_number"):
            return ("phone_number", "Enter a phone number with its country code, like +1 555 010 1234.")
        case .profileMember("name"), .named("name"):
            return ("name", "Your name can be up to 100 characters.")
        case .profile:
            return (nil, "Enter your email address or phone number.")
        case .named("username"):
            return ("username", "Enter the email address or phone number you signed up with.")
        case .named("password"):
            // The policy's own words already say what to do.
            let message = failure.message.prefix(1).uppercased() + failure.message.dropFirst()
            return ("password", message.hasSuffix(".") ? message : message + ".")
        default:
            return (failure.fieldName(.authenticationAPI), failure.message(.authenticationAPI))
        }
    }
}

extension Face {
    /// The hosted pages' JSON calls (their pages have `PageErrorMiddleware`).
    public static let hostedPages = Face(name: Face.unclaimedName, prefixes: ["/ui/"], renderer: HostedPageErrors())
}
