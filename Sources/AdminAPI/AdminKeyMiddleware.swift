import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import Logging
import Synchronization

/// The admin API key a request of the Admin API carries, once ``AdminKeyMiddleware`` found
/// it live, and the request's origin. The generated handlers take no context, so both travel
/// as task locals from the middleware to the handler, which hands them to the core call.
enum AdminCaller {
    @TaskLocal static var key: AdminAPIKey?
    /// The request's origin, from its context (``OriginRequestContext/origin``).
    @TaskLocal static var origin: RequestOrigin?
    /// Where a handler leaves the RFC 8288 link to the next page. The middleware writes it
    /// as it is: the generated server would percent-encode a header value whole.
    @TaskLocal static var nextLink: NextLink?

    /// The link a handler leaves for the middleware.
    final class NextLink: Sendable {
        let value = Mutex<String?>(nil)
    }

    /// The caller's key, when it holds `scope` (a write scope includes reading).
    static func require(_ resource: AdminScope.Resource, writes: Bool) throws -> AdminAPIKey {
        guard let key else { throw AdminAPIProblem.missingKey }
        let scope = AdminScope(resource, writes: writes)
        guard key.scopes.contains(scope) else { throw AdminAPIProblem.insufficientScope(scope) }
        return key
    }
}

/// Admits a request to the Admin API: from a loopback address unless the API is public,
/// with a live admin API key. Records every call under the key's ID, with the status it got.
struct AdminKeyMiddleware<Context: OriginRequestContext>: RouterMiddleware {
    let admin: AdminService
    let isPublic: Bool
    let renderer = AdminAPIErrors()

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        guard isPublic || AdminAddress.isLoopback(request) else { throw AdminAPIProblem.addressNotAllowed }
        guard let authorization = request.headers[.authorization], !authorization.isEmpty else { throw AdminAPIProblem.missingKey }
        guard let key = try await admin.key(authorization: authorization) else { throw AdminAPIProblem.invalidKey }
        var request = request
        // The answer's type is settled before the operation runs, so a refused `Accept`
        // changes nothing; the generated server then gets the one type it produces.
        let produces = AdminKeyMiddleware.mediaType(of: request)
        let acceptable = AcceptHeader(request.headers).admits(produces)
        if acceptable, request.headers[.accept] != nil {
            var head = request.head
            head.headerFields[.accept] = produces
            request = Request(head: head, body: request.body)
        }
        // A POST without a body (the enrollment link's is optional) reaches the generated
        // server as an empty JSON body, which it refuses: no body is an empty object.
        if request.method == .post, request.headers[.contentType] == nil, request.headers[.transferEncoding] == nil,
            request.headers[.contentLength].map({ $0 == "0" }) ?? true
        {
            var head = request.head
            head.headerFields[.contentType] = "application/json"
            head.headerFields[.contentLength] = "2"
            request = Request(head: head, body: RequestBody(buffer: ByteBuffer(string: "{}")))
        }
        let response: Response
        do {
            guard acceptable else { throw AdminAPIProblem.notAcceptable(produces) }
            let link = AdminCaller.NextLink()
            var answered = try await AdminCaller.$key.withValue(key) {
                try await AdminCaller.$origin.withValue(context.origin) {
                    try await AdminCaller.$nextLink.withValue(link) { try await next(request, context) }
                }
            }
            if let value = link.value.withLock({ $0 }) { answered.headers[HTTPField.Name("Link")!] = value }
            response = answered
        } catch {
            response = renderer.render(AdminAPIErrors.unwrapped(error), logger: context.logger)
        }
        // The call is answered whatever happens to its record: a change it made has been made.
        do {
            try await admin.recordRequest(method: request.method.rawValue, path: request.uri.path, status: Int(response.status.code), by: key.actor, origin: context.origin)
        } catch {
            context.logger.warning("could not record an Admin API call", metadata: ["key": "\(key.id)", "error": "\(error)"])
        }
        return response
    }

    /// What an operation answers with: NDJSON for the audit export, JSON for the rest.
    static func mediaType(of request: Request) -> String {
        request.uri.path.hasSuffix("/events/export") ? "application/x-ndjson" : "application/json"
    }
}

enum AdminAddress {
    /// Whether the connection's address (as the server's connection handler wrote it, in
    /// place of anything the client sent) is this machine's.
    static func isLoopback(_ request: Request) -> Bool {
        guard let address = request.headers[ClientAddressHeader.name] else { return false }
        return AddressRange.isLoopback(address)
    }
}
