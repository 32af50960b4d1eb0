import FaceFrame
import Foundation
import HTTPTypes
import Hummingbird
import IdentityCore
import WebAuthn

extension RouterGroup where Context == KratosRequestContext {
    /// Kratos's session management on the signed-in `/sessions` group (`session/handler.go`):
    /// `GET /sessions` lists the identity's other live sessions (paged, with `X-Total-Count`
    /// and `Link`), `DELETE /sessions` ends them all (`{"count"}`), `DELETE /sessions/{id}`
    /// ends one (`204`, also for an ID that names nothing live; `400` for the current one or
    /// an ID that is not a UUID).
    func addKratosSessions(_ services: KratosServices) {
        get { request, context in
            let current = try context.caller()
            let others = try await services.sessions.otherSessions(than: current)
            let user = try await services.accounts.user(current.userID)
            let page = KratosPage(request.uri.queryParameters, total: others.count)
            var response = JSONResponse.make(others[page.range].map { KratosSessionBody($0, user: user, publicURL: services.publicURL) })
            response.headers[HTTPField.Name("X-Total-Count")!] = String(others.count)
            response.headers[HTTPField.Name("Link")!] = page.links(path: request.uri.path)
            return response
        }
        delete { _, context in
            JSONResponse.make(KratosSessionCount(count: try await services.sessions.endOtherSessions(than: try context.caller(), origin: context.origin)))
        }
        delete(":id") { _, context in
            let current = try context.caller()
            let id = (context.parameters.get("id") ?? "").lowercased()
            guard UUIDText.bytes(id) != nil else {
                throw KratosError(status: .badRequest, id: nil, reason: "The session ID is not a UUID.", message: "invalid UUID length: \(id.count)")
            }
            guard id != KratosIDs.session(current.tokenHash) else {
                throw KratosError(status: .badRequest, id: nil, reason: "Use the logout flow to end the current session.", message: "cannot revoke current session")
            }
            // Kratos answers 204 whether or not the ID named a live session of the identity.
            if let other = try await services.sessions.otherSessions(than: current).first(where: { KratosIDs.session($0.tokenHash) == id }) {
                _ = try await services.sessions.endOtherSession(tokenHash: other.tokenHash, of: current, origin: context.origin)
            }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }
}

/// `DELETE /sessions`'s answer (`deleteMySessionsCount`).
struct KratosSessionCount: Encodable {
    let count: Int
}

/// One page of a Kratos list, read from either of the query forms Kratos takes
/// (`migrationpagination`): `page` and `per_page`, or `page_token` and `page_size` (a token
/// is the base64url of `{"offset":"N","v":2}`); values that do not read fall back to the
/// defaults, as Kratos's do.
struct KratosPage {
    static let defaultSize = 250
    static let maximumSize = 1000

    let offset, size, total: Int

    init(_ query: Parameters, total: Int) {
        self.total = total
        // Clamped to the list before any arithmetic: a page number or token offset near
        // Int.max must not overflow.
        if query.get("page_token") != nil || query.get("page_size") != nil {
            size = Self.size(query.get("page_size"))
            offset = min(query.get("page_token").flatMap(Self.offset(token:)) ?? 0, total)
        } else {
            size = Self.size(query.get("per_page"))
            offset = min(max(0, query.get("page").flatMap { Int($0) } ?? 0), total / size + 1) * size
        }
    }

    private static func size(_ text: String?) -> Int {
        guard let value = text.flatMap({ Int($0) }), value >= 1 else { return defaultSize }
        return min(value, maximumSize)
    }

    private static func offset(token: String) -> Int? {
        guard let data = Base64URL.decode(token), let object = try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any],
            let text = object["offset"] as? String, let value = Int(text), value >= 0
        else { return nil }
        return value
    }

    private static func token(offset: Int) -> String { Base64URL.encode(Array(#"{"offset":"\#(offset)","v":2}"#.utf8)) }

    /// The slice of the list this page holds.
    var range: Range<Int> { min(offset, total)..<min(offset, total) + min(size, total - min(offset, total)) }

    /// RFC 8288 links to the first, previous, next and last pages, as Kratos writes them.
    func links(path: String) -> String {
        let lastOffset = total == 0 ? 0 : (total - 1) / size * size
        var links = [(0, "first")]
        if offset > 0 { links.append((max(0, offset - size), "prev")) }
        if offset + size < total {
            links.append((offset + size, "next"))
            links.append((lastOffset, "last"))
        }
        return links.map { target, relation in
            "<\(path)?page=\(target / size)&page_size=\(size)&page_token=\(Self.token(offset: target))&per_page=\(size)>; rel=\"\(relation)\""
        }.joined(separator: ",")
    }
}
