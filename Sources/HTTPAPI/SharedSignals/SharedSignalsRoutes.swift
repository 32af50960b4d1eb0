public import FaceFrame
import Foundation
import HTTPTypes
public import Hummingbird
public import IdentityCore

/// What the Shared Signals transmitter's routes need.
public struct SharedSignalsServices: Sendable {
    let signals: SharedSignalsService
    let admin: AdminService
    let maximumBodyBytes: Int

    public init(signals: SharedSignalsService, admin: AdminService, maximumBodyBytes: Int) {
        self.signals = signals
        self.admin = admin
        self.maximumBodyBytes = maximumBodyBytes
    }
}

extension Face {
    /// The Shared Signals management API and poll endpoint: OAuth's error envelope.
    public static let sharedSignals = Face(name: "shared_signals", prefixes: ["/ssf/"])
}

extension Router where Context == FaceRequestContext {
    /// The transmitter (OpenID Shared Signals Framework 1.0): its metadata at
    /// `/.well-known/ssf-configuration`, and under `/ssf/` the stream management API (SSF §8)
    /// and the poll endpoint (RFC 8936), each for a bearer admin API key of scope `ssf:write`.
    public func addSharedSignals(_ services: SharedSignalsServices) {
        let issuer = services.signals.issuer
        group().add(middleware: ErrorRenderingMiddleware(AuthenticationAPIErrors())).get("/.well-known/ssf-configuration") { _, _ in
            var response = JSONResponse.make(object: SharedSignalsDocuments.configuration(issuer: issuer))
            response.headers[.cacheControl] = "public, max-age=300"
            response.headers[HTTPField.Name("Pragma")!] = nil
            return response
        }
        let api = group("/ssf").add(middleware: ErrorRenderingMiddleware(AuthenticationAPIErrors()))
        let reader = RequestBodyReader(maximumBytes: services.maximumBodyBytes)
        let signals = services.signals

        api.post("streams") { request, context in
            let key = try await services.receiver(request)
            let stream = try await signals.create(try SharedSignalsDocuments.streamRequest(try await reader.object(request)), by: key)
            return JSONResponse.make(object: SharedSignalsDocuments.stream(stream, issuer: issuer), status: .created)
        }
        api.get("streams") { request, context in
            let key = try await services.receiver(request)
            guard let id = request.uri.queryParameters["stream_id"].map(String.init) else {
                return JSONResponse.make(object: try await signals.streams(of: key).map { SharedSignalsDocuments.stream($0, issuer: issuer) })
            }
            return JSONResponse.make(object: SharedSignalsDocuments.stream(try await signals.stream(id, of: key), issuer: issuer))
        }
        for (method, replacing) in [(HTTPRequest.Method.patch, false), (.put, true)] {
            api.on("streams", method: method) { request, context in
                let key = try await services.receiver(request)
                let object = try await reader.object(request)
                let stream = try await signals.update(
                    try SharedSignalsDocuments.streamID(object), try SharedSignalsDocuments.streamRequest(object), replacing: replacing, by: key
                )
                return JSONResponse.make(object: SharedSignalsDocuments.stream(stream, issuer: issuer))
            }
        }
        api.delete("streams") { request, context in
            let key = try await services.receiver(request)
            try await signals.delete(try SharedSignalsDocuments.queryStreamID(request), by: key)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        api.get("status") { request, context in
            let key = try await services.receiver(request)
            return JSONResponse.make(object: SharedSignalsDocuments.status(try await signals.stream(try SharedSignalsDocuments.queryStreamID(request), of: key)))
        }
        api.post("status") { request, context in
            let key = try await services.receiver(request)
            let object = try await reader.object(request)
            guard let status = (object["status"] as? String).flatMap(SignalStream.Status.init(rawValue:)) else {
                throw IdentityError(.invalidRequest, "status must be enabled, paused or disabled", field: "status")
            }
            let reason = try SharedSignalsDocuments.optionalString(object, "reason")
            let stream = try await signals.setStatus(try SharedSignalsDocuments.streamID(object), to: status, reason: reason, by: key)
            return JSONResponse.make(object: SharedSignalsDocuments.status(stream))
        }
        api.post("subjects/add") { request, context in
            let key = try await services.receiver(request)
            let object = try await reader.object(request)
            try await signals.addSubject(try SharedSignalsDocuments.streamID(object), try SharedSignalsDocuments.subject(object), by: key)
            return Response(status: .ok, headers: [.cacheControl: "no-store"])
        }
        api.post("subjects/remove") { request, context in
            let key = try await services.receiver(request)
            let object = try await reader.object(request)
            try await signals.removeSubject(try SharedSignalsDocuments.streamID(object), try SharedSignalsDocuments.subject(object), by: key)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        api.post("verify") { request, context in
            let key = try await services.receiver(request)
            let object = try await reader.object(request)
            let state = try SharedSignalsDocuments.optionalString(object, "state")
            try await signals.verify(try SharedSignalsDocuments.streamID(object), state: state, by: key, origin: context.origin)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        api.post("poll/{stream}") { request, context in
            let key = try await services.receiver(request)
            let object = try await reader.object(request, allowingEmpty: true)
            let poll = try SharedSignalsDocuments.pollRequest(object)
            let answer = try await signals.poll(
                context.parameters.get("stream") ?? "", acknowledged: poll.acknowledged, errors: poll.errors, maximum: poll.maximum,
                returnImmediately: poll.returnImmediately, by: key
            )
            var body: [String: Any] = ["sets": Dictionary(answer.sets.map { ($0.jti, $0.token) }) { first, _ in first }]
            if answer.moreAvailable { body["moreAvailable"] = true }
            return JSONResponse.make(object: body)
        }
    }
}

extension SharedSignalsServices {
    /// The receiver a request's bearer admin API key is: 401 without a live key, 403 for a
    /// key without `ssf:write`.
    func receiver(_ request: Request) async throws -> AdminAPIKey {
        guard let authorization = request.headers[.authorization], let key = try await admin.key(authorization: authorization) else {
            throw IdentityError(.invalidToken, "an admin API key with scope ssf:write is required as a bearer token")
        }
        guard key.scopes.contains(AdminScope(.ssf, writes: true)) else {
            throw IdentityError(.insufficientScope, "this key does not have scope ssf:write")
        }
        return key
    }
}

extension RequestBodyReader {
    /// A JSON object body; `{}` for an empty one when `allowingEmpty` (a poll's defaults).
    func object(_ request: Request, allowingEmpty: Bool = false) async throws -> [String: Any] {
        let buffer = try await bytes(of: request)
        if buffer.readableBytes == 0, allowingEmpty { return [:] }
        guard request.headers[.contentType].map({ $0.lowercased().hasPrefix("application/json") }) ?? false else {
            throw IdentityError(.invalidRequest, "the body must be JSON (Content-Type: application/json)", reason: .unsupportedMediaType)
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any] else {
            throw IdentityError(.invalidRequest, "the body must be a JSON object")
        }
        return object
    }
}
