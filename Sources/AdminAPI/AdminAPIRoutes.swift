public import FaceFrame
import OpenAPIHummingbird
import OpenAPIRuntime
import Yams
public import Foundation
public import Hummingbird
public import IdentityCore

/// What the Admin API needs.
public struct AdminAPIServices: Sendable {
    /// The operations.
    public let admin: AdminService
    /// The configured clients, shown read-only.
    public let clients: ClientRegistry
    /// Provider names by AAGUID.
    public let authenticatorNames: AuthenticatorNames
    /// Whether callers on any address are admitted (`admin.public`); otherwise only loopback.
    public let isPublic: Bool
    /// The configured webhook endpoints.
    public let webhookEndpoints: [WebhookEndpoint]
    /// The FIDO metadata in use and where it comes from, when configured.
    public let metadata: (source: String, metadata: AttestationMetadata)?
    /// Enrollment links.
    public let recovery: AccountRecoveryService
    /// The server's public URL, which enrollment links open.
    public let publicURL: String
    /// Imports accounts from other identity servers.
    public let importer: AccountImporter
    /// The daily rollups `GET /admin/v1/stats` reads.
    public let stats: StatsService?

    /// Drops a trailing slash from `publicURL`.
    public init(
        admin: AdminService, recovery: AccountRecoveryService, importer: AccountImporter, publicURL: String, clients: ClientRegistry,
        authenticatorNames: AuthenticatorNames, isPublic: Bool, webhookEndpoints: [WebhookEndpoint] = [], metadata: (source: String, metadata: AttestationMetadata)? = nil,
        stats: StatsService? = nil
    ) {
        self.stats = stats
        self.importer = importer
        self.recovery = recovery
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.metadata = metadata
        self.webhookEndpoints = webhookEndpoints
        self.admin = admin
        self.clients = clients
        self.authenticatorNames = authenticatorNames
        self.isPublic = isPublic
    }
}

/// The OpenAPI document the Admin API is generated from, as JSON.
public enum AdminAPIDocument {
    /// The document, read from the bundled YAML once.
    public static let json: Data = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"), let yaml = try? String(contentsOf: url, encoding: .utf8),
            let object = try? Yams.load(yaml: yaml),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { preconditionFailure("the Admin API's OpenAPI document is bundled with the target and parses") }
        return data
    }()

    /// Each path of the document (relative to `/admin/v1/`) with its methods.
    static let methods: [(path: String, methods: [String])] = {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any], let paths = object["paths"] as? [String: [String: Any]] else {
            return []
        }
        return paths.keys.sorted().map { path in
            (String(path.dropFirst()), ["GET", "POST", "PUT", "PATCH", "DELETE"].filter { paths[path]?[$0.lowercased()] != nil })
        }
    }()
}

extension Router where Context: OriginRequestContext {
    /// Adds the Admin API under `/admin/v1/`: its document at `/admin/v1/openapi.json`,
    /// and the operations the generated server routes, behind the address and key checks.
    public func addAdminAPI(_ services: AdminAPIServices) throws {
        let group = self.group("admin/v1")
        group.add(middleware: ErrorRenderingMiddleware(AdminAPIErrors()))
        let isPublic = services.isPublic
        group.get("openapi.json") { request, _ in
            guard isPublic || AdminAddress.isLoopback(request) else {
                throw AdminAPIProblem.addressNotAllowed
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: AdminAPIDocument.json))
            )
        }
        let operations = group.group().add(middleware: AdminKeyMiddleware(admin: services.admin, isPublic: isPublic))
        try AdminAPIHandler(services: services).registerHandlers(on: operations, serverURL: URL(string: "/")!)
        // A method the document does not list for a path it has: 405 with the ones it does.
        for (path, methods) in AdminAPIDocument.methods {
            let allow = (methods + (methods.contains("GET") ? ["HEAD"] : [])).joined(separator: ", ")
            let route = RouterPath(path.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: ""))
            for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!] where !methods.contains(method.rawValue) {
                group.on(route, method: method) { _, _ -> Response in
                    throw AdminAPIProblem(status: .methodNotAllowed, code: "method_not_allowed", detail: "\(path) answers \(allow)", allow: allow)
                }
            }
        }
    }
}

/// The Admin API's JSON shapes for `latchkey admin … --json`, so that the command line and
/// the API print the same objects.
public enum AdminAPIJSON {
    /// A user, as `GET /admin/v1/users/{id}` answers.
    public static func user(_ user: User) -> String { encode(AdminAPIHandler.user(user)) }

    /// A passkey, as `GET /admin/v1/users/{id}/credentials` lists it.
    public static func credential(_ credential: PasskeyCredential, names: AuthenticatorNames) -> String {
        encode(AdminAPIHandler.credential(credential, names: names))
    }

    private static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }
}
