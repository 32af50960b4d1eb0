import Foundation
import LatchkeyWire
public import FaceFrame
public import Hummingbird
public import IdentityCore
public import Logging

/// The My Account API's envelope: RFC 9457 problem details in Auth0's shape.
public struct MyAccountErrors: FaceErrorRenderer {
    public init() {}

    public func response(for failure: IdentityError) -> Response {
        var headers: HTTPFields = [:]
        if let challenge = failure.bearerChallenge { headers[.wwwAuthenticate] = challenge }
        let message = failure.message(.authenticationAPI)
        let validation = failure.fieldName(.authenticationAPI).map { field in
            [ProblemDetails.ValidationError(detail: message, field: field, pointer: "/" + field.replacingOccurrences(of: ".", with: "/"))]
        }
        return JSONResponse.make(
            ProblemDetails(
                code: failure.code.rawValue, status: Int(failure.status.code), title: failure.status.reasonPhrase, detail: message,
                reason: failure.reason?.rawValue, validationErrors: validation
            ),
            status: failure.status,
            headers: headers
        )
    }

    public func unexpected(_ error: any Error, logger: Logger) -> Response {
        logger.error("unexpected error", metadata: ["error": "\(error)"])
        return JSONResponse.make(
            ProblemDetails(code: "server_error", status: 500, title: "Internal Server Error", detail: "the server could not complete the request"),
            status: .internalServerError
        )
    }
}
