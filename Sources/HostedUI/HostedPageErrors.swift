public import FaceFrame
public import Hummingbird
public import IdentityCore
public import Localization
public import Logging

/// The hosted pages' JSON calls answer in the Authentication API's shape plus `field`, the
/// form field at fault, and with messages written for the person at the keyboard rather than
/// for a developer: the page shows each one next to its field.
public struct HostedPageErrors: FaceErrorRenderer {
    /// The words, in the language ``RequestLanguage/current`` names (the hosted pages' calls
    /// set it from the page's language), English otherwise.
    let catalog: StringCatalog

    /// Errors in the words of `catalog`.
    public init(catalog: StringCatalog = .shared) { self.catalog = catalog }

    private var strings: Strings { catalog.strings(RequestLanguage.current ?? .english) }

    private struct Body: Encodable {
        let error, error_description: String
        let reason, credential_id, field: String?
    }

    public func response(for failure: IdentityError) -> Response {
        let (field, message) = Self.human(failure, strings)
        return JSONResponse.make(
            Body(error: failure.code.rawValue, error_description: message, reason: failure.reason?.rawValue, credential_id: failure.credentialID, field: field),
            status: failure.status
        )
    }

    public func unexpected(_ error: any Error, logger: Logger) -> Response {
        logger.error("unexpected error", metadata: ["error": "\(error)"])
        return JSONResponse.make(
            Body(error: "server_error", error_description: strings("error.server_json"), reason: nil, credential_id: nil, field: nil),
            status: .internalServerError
        )
    }

    public func faceResponse(for error: any Error) -> Response? {
        guard let missing = error as? MissingField else { return nil }
        return JSONResponse.make(
            Body(error: IdentityError.Code.invalidRequest.rawValue, error_description: strings(missing.words), reason: "required", credential_id: nil, field: missing.field),
            status: .badRequest
        )
    }

    /// The form field and the words for a failure.
    static func human(_ failure: IdentityError, _ t: Strings) -> (field: String?, message: String) {
        if case .userExists(let kind) = failure.reason {
            return (nil, t(kind == .phoneNumber ? "field.phone_exists" : "field.email_exists"))
        }
        if failure.reason == .lastAuthenticationMethod {
            return (nil, t("account.passkey.only_method"))
        }
        switch failure.field {
        case .profileMember("email"), .named("email"):
            return ("email", t(failure.reason == .required ? "field.email_required" : "field.email_invalid"))
        case .profileMember("phone_number"):
            return ("phone_number", t("field.phone_invalid"))
        case .profileMember("name"), .named("name"):
            return ("name", t("field.name_too_long", count: ProfileValidation.maximumNameLength))
        case .profile:
            return (nil, t("field.identifier_required"))
        case .named("username"):
            return ("username", t("field.username"))
        case .named("password"):
            return ("password", passwordMessage(failure, t))
        default:
            let words = FailureWords.of(code: failure.code.rawValue, reason: failure.reason, message: failure.message(.authenticationAPI), t)
            return (failure.fieldName(.authenticationAPI), words.message)
        }
    }

    /// The password policy's refusals in words; another failure about the password (a
    /// wrong one) as its code says.
    private static func passwordMessage(_ failure: IdentityError, _ t: Strings) -> String {
        switch failure.message {
        case PasswordPolicy.tooShort.message: return t("field.password_too_short", count: PasswordPolicy.minimumLength)
        case PasswordPolicy.tooLong.message: return t("field.password_too_long", count: PasswordPolicy.maximumLength)
        case PasswordPolicy.tooCommon.message: return t("field.password_common")
        case _ where failure.reason == .required: return t("field.password_required")
        case _ where t.language == .english:
            // The server's own words, as a sentence.
            let message = failure.message.prefix(1).uppercased() + failure.message.dropFirst()
            return message.hasSuffix(".") ? message : message + "."
        default: return FailureWords.of(code: failure.code.rawValue, reason: failure.reason, message: failure.message, t).message
        }
    }
}

/// A form field left empty, refused in the page's words: `invalid_request` with reason
/// `required`, as the engine's own refusals of a missing member.
struct MissingField: Error {
    /// The field, as the form names it.
    let field: String
    /// The key of the words that say what to enter.
    let words: String
}

/// A failure in a person's language. The server's own messages are English written for
/// people, and more precise than any per-code sentence, so English pages show them as
/// they are; another language gets its words for the failure's reason, else its code, and
/// the server's message as a detail for developers.
enum FailureWords {
    static func of(code: String, reason: IdentityError.Reason?, message: String, _ t: Strings) -> (message: String, details: String?) {
        guard t.language != .english else { return (message, nil) }
        if let reason {
            switch reason {
            case .rateLimited(let seconds), .busy(let seconds):
                return (t("error.reason.rate_limited", count: seconds), message)
            case .verification:
                return (t("error.reason.verification"), message)
            default:
                let key = "error.reason." + reason.rawValue
                if t.knows(key) { return (t(key), message) }
            }
        }
        let key = "error.code." + code
        return (t(t.knows(key) ? key : "error.code.invalid_request"), message)
    }
}

extension Face {
    /// The hosted pages' JSON calls (their pages have `PageErrorMiddleware`).
    public static let hostedPages = Face(name: Face.unclaimedName, prefixes: ["/ui/"], renderer: HostedPageErrors())
}
