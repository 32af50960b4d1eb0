import Foundation
import HTTPTypes
import IdentityCore
import LatchkeyWire
import OpenAPIRuntime
import Synchronization
import WebAuthn

/// The Admin API's operations: the generated `APIProtocol`, each one a check of the key's
/// scope, a call of ``AdminService`` and a mapping to the document's shapes. Refusals are
/// thrown and rendered by ``AdminAPIErrors``.
struct AdminAPIHandler: APIProtocol {
    let services: AdminAPIServices

    private var admin: AdminService { services.admin }

    // MARK: - Users

    func listUsers(_ input: Operations.ListUsers.Input) async throws -> Operations.ListUsers.Output {
        _ = try AdminCaller.require(.users, writes: false)
        let query = input.query
        let page = try await admin.users(
            identifier: query.identifier, identifierPrefix: query.identifierPrefix, pageSize: query.pageSize, pageToken: query.pageToken
        )
        if let next = page.next {
            var parameters = [("page_token", next)]
            if let identifier = query.identifier { parameters.append(("identifier", identifier)) }
            if let prefix = query.identifierPrefix { parameters.append(("identifier_prefix", prefix)) }
            if let size = query.pageSize { parameters.append(("page_size", String(size))) }
            Self.linkNext("/admin/v1/users", parameters)
        }
        return .ok(.init(body: .json(.init(users: page.users.map(Self.user), nextPageToken: page.next))))
    }

    func createUser(_ input: Operations.CreateUser.Input) async throws -> Operations.CreateUser.Output {
        let key = try AdminCaller.require(.users, writes: true)
        guard case .json(let body) = input.body else { throw Self.unreadable }
        let user = try await admin.createUser(
            UserProfile(email: body.email, phoneNumber: body.phoneNumber, username: body.username, name: body.name), emailVerified: body.emailVerified ?? false,
            by: key.actor, origin: AdminCaller.origin
        )
        return .created(.init(body: .json(Self.user(user))))
    }

    func getUser(_ input: Operations.GetUser.Input) async throws -> Operations.GetUser.Output {
        _ = try AdminCaller.require(.users, writes: false)
        return .ok(.init(body: .json(Self.user(try await admin.user(id: UserID(rawValue: input.path.id))))))
    }

    func updateUser(_ input: Operations.UpdateUser.Input) async throws -> Operations.UpdateUser.Output {
        let key = try AdminCaller.require(.users, writes: true)
        guard case .json(let body) = input.body else { throw Self.unreadable }
        // An empty name removes it; no name member leaves it as it is.
        let name: String?? = body.name.map { $0.isEmpty ? .some(nil) : .some($0) } ?? nil
        let user = try await admin.updateUser(id: UserID(rawValue: input.path.id), name: name, emailVerified: body.emailVerified, by: key.actor, origin: AdminCaller.origin)
        return .ok(.init(body: .json(Self.user(user))))
    }

    func deleteUser(_ input: Operations.DeleteUser.Input) async throws -> Operations.DeleteUser.Output {
        let key = try AdminCaller.require(.users, writes: true)
        try await admin.deleteUser(id: UserID(rawValue: input.path.id), by: key.actor, origin: AdminCaller.origin)
        return .noContent(.init())
    }

    func disableUser(_ input: Operations.DisableUser.Input) async throws -> Operations.DisableUser.Output {
        let key = try AdminCaller.require(.users, writes: true)
        let user = try await admin.setUserDisabled(id: UserID(rawValue: input.path.id), disabled: true, by: key.actor, origin: AdminCaller.origin)
        return .ok(.init(body: .json(Self.user(user))))
    }

    func enableUser(_ input: Operations.EnableUser.Input) async throws -> Operations.EnableUser.Output {
        let key = try AdminCaller.require(.users, writes: true)
        let user = try await admin.setUserDisabled(id: UserID(rawValue: input.path.id), disabled: false, by: key.actor, origin: AdminCaller.origin)
        return .ok(.init(body: .json(Self.user(user))))
    }

    // MARK: - Imports

    /// The largest one-document file (a JSON array, a realm export) the API imports in one
    /// call: 64 MiB, some 60,000 Kratos identities. Such a file is read whole before its
    /// records are; a file of one object per line is imported as it arrives, at any size.
    static let maximumImportBytes = 64 << 20

    func importAccounts(_ input: Operations.ImportAccounts.Input) async throws -> Operations.ImportAccounts.Output {
        let key = try AdminCaller.require(.users, writes: true)
        let body: HTTPBody
        switch input.body {
        case .applicationXNdjson(let stream): body = stream
        case .binary(let stream): body = stream
        }
        // The document lists the same names, so the generated server has checked them.
        guard let format = ImportFormat(rawValue: input.query.format.rawValue) else {
            throw AdminAPIProblem(status: .badRequest, code: "invalid_request", detail: "format is kratos, keycloak or auth0")
        }
        let dryRun = input.query.dryRun ?? false
        let report: ImportReport
        do {
            report = try await services.importer.run(streaming: body, format: format, dryRun: dryRun, actor: key.actor, documentLimit: Self.maximumImportBytes)
        } catch is ImportDocumentTooLarge {
            throw AdminAPIProblem(
                status: .contentTooLarge, code: "body_too_large",
                detail: "a file that is one JSON document is at most \(Self.maximumImportBytes >> 20) MiB; send one object per line (NDJSON), or the file in parts"
            )
        }
        return .ok(.init(body: .json(.init(
            dryRun: dryRun, created: report.count(.created), merged: report.count(.merged), skipped: report.count(.skipped), failed: report.count(.failed),
            records: report.entries.map { entry in
                .init(
                    position: entry.position, sourceId: entry.sourceID, userId: entry.userID?.rawValue, outcome: .init(rawValue: entry.outcome.rawValue)!,
                    reason: entry.notes.isEmpty ? nil : entry.notes.joined(separator: "; ")
                )
            }
        ))))
    }

    // MARK: - Credentials

    func listUserCredentials(_ input: Operations.ListUserCredentials.Input) async throws -> Operations.ListUserCredentials.Output {
        _ = try AdminCaller.require(.credentials, writes: false)
        let found = try await admin.credentials(userID: UserID(rawValue: input.path.id))
        return .ok(.init(body: .json(.init(credentials: found.passkeys.map(credential), password: found.hasPassword))))
    }

    func deleteUserCredential(_ input: Operations.DeleteUserCredential.Input) async throws -> Operations.DeleteUserCredential.Output {
        let key = try AdminCaller.require(.credentials, writes: true)
        try await admin.deleteCredential(userID: UserID(rawValue: input.path.id), credentialID: try Self.credentialID(input.path.credentialId), by: key.actor, origin: AdminCaller.origin)
        return .noContent(.init())
    }

    func disableUserCredential(_ input: Operations.DisableUserCredential.Input) async throws -> Operations.DisableUserCredential.Output {
        let key = try AdminCaller.require(.credentials, writes: true)
        let changed = try await admin.setCredentialDisabled(
            userID: UserID(rawValue: input.path.id), credentialID: try Self.credentialID(input.path.credentialId), disabled: true, by: key.actor, origin: AdminCaller.origin
        )
        return .ok(.init(body: .json(credential(changed))))
    }

    func enableUserCredential(_ input: Operations.EnableUserCredential.Input) async throws -> Operations.EnableUserCredential.Output {
        let key = try AdminCaller.require(.credentials, writes: true)
        let changed = try await admin.setCredentialDisabled(
            userID: UserID(rawValue: input.path.id), credentialID: try Self.credentialID(input.path.credentialId), disabled: false, by: key.actor, origin: AdminCaller.origin
        )
        return .ok(.init(body: .json(credential(changed))))
    }

    func createEnrollmentLink(_ input: Operations.CreateEnrollmentLink.Input) async throws -> Operations.CreateEnrollmentLink.Output {
        let key = try AdminCaller.require(.enrollment, writes: true)
        var lifetime: TimeInterval = 86400
        if case .json(let body)? = input.body, let seconds = body.expiresIn {
            guard (300...604_800).contains(seconds) else {
                throw IdentityError(.invalidRequest, "expires_in must be between 300 (5 minutes) and 604800 (7 days) seconds", field: "expires_in")
            }
            lifetime = TimeInterval(seconds)
        }
        let userID = UserID(rawValue: input.path.id)
        let made = try await services.recovery.createEnrollmentLink(userID: userID, lifetime: lifetime, by: key.actor, origin: AdminCaller.origin)
        let url = AccountRecoveryService.enrollmentURL(publicURL: services.publicURL, userID: userID, code: made.code)
        return .created(.init(body: .json(.init(url: url, code: made.code, expiresAt: made.expiresAt))))
    }

    // MARK: - Sessions

    func listUserSessions(_ input: Operations.ListUserSessions.Input) async throws -> Operations.ListUserSessions.Output {
        _ = try AdminCaller.require(.sessions, writes: false)
        let now = Date()
        let sessions = try await admin.sessions(userID: UserID(rawValue: input.path.id)).map { session in
            Components.Schemas.Session(
                id: session.id, kind: session.kind == .tokens ? .tokens : .browser, clientId: session.clientID,
                method: session.method == .passkey ? .passkey : .password, credentialId: session.credentialID.map(Base64URL.encode),
                startedAt: session.startedAt, expiresAt: session.expiresAt, revokedAt: session.revokedAt, active: session.isActive(at: now)
            )
        }
        return .ok(.init(body: .json(.init(sessions: sessions))))
    }

    func revokeUserSessions(_ input: Operations.RevokeUserSessions.Input) async throws -> Operations.RevokeUserSessions.Output {
        let key = try AdminCaller.require(.sessions, writes: true)
        let count = try await admin.revokeSessions(userID: UserID(rawValue: input.path.id), by: key.actor, origin: AdminCaller.origin)
        return .ok(.init(body: .json(.init(revoked: count))))
    }

    func revokeUserSession(_ input: Operations.RevokeUserSession.Input) async throws -> Operations.RevokeUserSession.Output {
        let key = try AdminCaller.require(.sessions, writes: true)
        try await admin.revokeSession(userID: UserID(rawValue: input.path.id), id: input.path.sessionId, by: key.actor, origin: AdminCaller.origin)
        return .noContent(.init())
    }

    // MARK: - Events

    func listEvents(_ input: Operations.ListEvents.Input) async throws -> Operations.ListEvents.Output {
        _ = try AdminCaller.require(.events, writes: false)
        let query = input.query
        let filter = Self.auditQuery(type: query._type, userID: query.userId, clientID: query.clientId, ip: query.ip, from: query.from, to: query.to)
        let page = try await admin.events(filter, pageSize: query.pageSize, pageToken: query.pageToken)
        if let next = page.next {
            var parameters = [("page_token", next)]
            if let kind = query._type { parameters.append(("type", kind.rawValue)) }
            if let userID = query.userId { parameters.append(("user_id", userID)) }
            if let clientID = query.clientId { parameters.append(("client_id", clientID)) }
            if let ip = query.ip { parameters.append(("ip", ip)) }
            if let from = query.from { parameters.append(("from", from.formatted(.iso8601))) }
            if let to = query.to { parameters.append(("to", to.formatted(.iso8601))) }
            if let size = query.pageSize { parameters.append(("page_size", String(size))) }
            Self.linkNext("/admin/v1/events", parameters)
        }
        return .ok(.init(body: .json(.init(events: try page.events.map(Self.event), nextPageToken: page.next))))
    }

    /// The filter both event operations take (their generated query types are distinct).
    private static func auditQuery(
        type: Components.Schemas.EventType?, userID: String?, clientID: String?, ip: String?, from: Date?, to: Date?
    ) -> AuditQuery {
        AuditQuery(
            kind: type.flatMap { AuditEvent.Kind(rawValue: $0.rawValue) }, userID: userID.map(UserID.init(rawValue:)), clientID: clientID,
            ip: ip, from: from, to: to, limit: 0
        )
    }

    func exportEvents(_ input: Operations.ExportEvents.Input) async throws -> Operations.ExportEvents.Output {
        _ = try AdminCaller.require(.events, writes: false)
        let query = input.query
        let filter = Self.auditQuery(type: query._type, userID: query.userId, clientID: query.clientId, ip: query.ip, from: query.from, to: query.to)
        // The first page is read before answering, so that a database that is down gets a
        // 503 rather than a cut stream.
        let first = try await admin.events(filter, pageSize: AdminService.maximumPageSize, pageToken: nil)
        let lines = EventLines(admin: admin, filter: filter, first: first)
        return .ok(.init(body: .applicationXNdjson(HTTPBody(lines, length: .unknown, iterationBehavior: .single))))
    }

    // MARK: - Stats

    func getStats(_ input: Operations.GetStats.Input) async throws -> Operations.GetStats.Output {
        _ = try AdminCaller.require(.events, writes: false)
        guard let stats = services.stats else { throw IdentityError(.notFound, "this server keeps no statistics") }
        let to = input.query.to ?? Date()
        // Today and the 29 days before it: 30 intervals.
        let from = input.query.from ?? to.addingTimeInterval(-29 * 86_400)
        let intervals = try await stats.intervals(from: from, to: to)
        let names = services.authenticatorNames
        return .ok(.init(body: .json(.init(intervals: intervals.map { interval in
            Components.Schemas.StatsInterval(
                start: interval.start,
                signIns: .init(passkey: Int(interval.passkeySignIns), password: Int(interval.passwordSignIns), recovery: Int(interval.recoverySignIns)),
                signUps: Int(interval.signUps), signUpsStarted: Int(interval.signUpsStarted),
                failures: .init(additionalProperties: interval.failures.mapValues { Int($0) }),
                providers: .init(additionalProperties: interval.providerNames(names).mapValues { Int($0) }),
                synced: Int(interval.synced), deviceBound: Int(interval.deviceBound), hybrid: Int(interval.hybrid)
            )
        }))))
    }

    // MARK: - Webhooks

    func listWebhookEndpoints(_ input: Operations.ListWebhookEndpoints.Input) async throws -> Operations.ListWebhookEndpoints.Output {
        _ = try AdminCaller.require(.webhooks, writes: false)
        let off = try await admin.disabledWebhookEndpoints()
        return .ok(.init(body: .json(.init(endpoints: services.webhookEndpoints.map { Self.endpoint($0, offBecause: off[$0.id]) }))))
    }

    func enableWebhookEndpoint(_ input: Operations.EnableWebhookEndpoint.Input) async throws -> Operations.EnableWebhookEndpoint.Output {
        _ = try AdminCaller.require(.webhooks, writes: true)
        guard let endpoint = services.webhookEndpoints.first(where: { $0.id == input.path.endpointId }) else {
            throw IdentityError(.notFound, "no configured webhook endpoint has this ID", reason: .endpointNotFound)
        }
        _ = try await admin.enableWebhookEndpoint(id: endpoint.id)
        return .ok(.init(body: .json(Self.endpoint(endpoint, offBecause: nil))))
    }

    static func endpoint(_ endpoint: WebhookEndpoint, offBecause reason: String?) -> Components.Schemas.WebhookEndpoint {
        Components.Schemas.WebhookEndpoint(
            id: endpoint.id, url: endpoint.url.absoluteString, events: endpoint.types.map(\.rawValue).sorted().compactMap(Components.Schemas.WebhookEventType.init(rawValue:)),
            disabled: reason != nil, disabledReason: reason
        )
    }

    func listWebhookDeliveries(_ input: Operations.ListWebhookDeliveries.Input) async throws -> Operations.ListWebhookDeliveries.Output {
        _ = try AdminCaller.require(.webhooks, writes: false)
        let query = input.query
        let page = try await admin.webhookDeliveries(
            status: query.status.flatMap { WebhookDeliveryStatus(rawValue: $0.rawValue) }, pageSize: query.pageSize, pageToken: query.pageToken
        )
        if let next = page.next {
            var parameters = [("page_token", next)]
            if let status = query.status { parameters.append(("status", status.rawValue)) }
            if let size = query.pageSize { parameters.append(("page_size", String(size))) }
            Self.linkNext("/admin/v1/webhooks/deliveries", parameters)
        }
        return .ok(.init(body: .json(.init(deliveries: try page.deliveries.map(Self.delivery), nextPageToken: page.next))))
    }

    func resendWebhookDelivery(_ input: Operations.ResendWebhookDelivery.Input) async throws -> Operations.ResendWebhookDelivery.Output {
        _ = try AdminCaller.require(.webhooks, writes: true)
        return .ok(.init(body: .json(try Self.delivery(try await admin.resendWebhookDelivery(id: input.path.deliveryId)))))
    }

    static func delivery(_ delivery: WebhookDelivery) throws -> Components.Schemas.WebhookDelivery {
        guard let type = WebhookEventType(reporting: delivery.event.event.kind).flatMap({ Components.Schemas.WebhookEventType(rawValue: $0.rawValue) }),
            let status = Components.Schemas.WebhookDeliveryStatus(rawValue: delivery.status.rawValue)
        else { throw IdentityError(.invalidRequest, "delivery \(delivery.id) reports an event no webhook type carries") }
        return Components.Schemas.WebhookDelivery(
            id: delivery.id, endpointId: delivery.endpointID, _type: type, event: try event(delivery.event), status: status, attempts: delivery.attempts,
            nextAttemptAt: delivery.nextAttemptAt, lastStatus: delivery.lastStatus, lastError: delivery.lastError, createdAt: delivery.createdAt,
            deliveredAt: delivery.deliveredAt
        )
    }

    // MARK: - Metadata

    func getMetadataState(_ input: Operations.GetMetadataState.Input) async throws -> Operations.GetMetadataState.Output {
        _ = try AdminCaller.require(.clients, writes: false)
        guard let configured = services.metadata else {
            return .ok(.init(body: .json(.init(configured: false, refusedStatuses: [], refusedModels: []))))
        }
        let metadata = configured.metadata
        let blob = metadata.blob
        let refused = metadata.refusedModels.map {
            Components.Schemas.MetadataState.RefusedModelsPayloadPayload(identifier: $0.identifier, description: $0.description, status: $0.status, effectiveDate: $0.effectiveDate)
        }
        return .ok(.init(body: .json(.init(
            configured: true, source: configured.source, blobNumber: blob?.number, nextUpdate: blob?.nextUpdateDate, entries: blob?.entries.count,
            refusedStatuses: metadata.refusedStatuses.sorted(), refusedModels: refused
        ))))
    }

    // MARK: - Clients

    func listClients(_ input: Operations.ListClients.Input) async throws -> Operations.ListClients.Output {
        _ = try AdminCaller.require(.clients, writes: false)
        let clients = services.clients.all.map { client in
            Components.Schemas.Client(
                clientId: client.clientID, name: client.name, firstParty: client.isFirstParty, redirectUris: client.redirectURIs,
                grantTypes: client.grantTypes.map(\.rawValue).sorted()
            )
        }
        return .ok(.init(body: .json(.init(clients: clients))))
    }

    // MARK: - Shapes

    static func user(_ user: User) -> Components.Schemas.User {
        Components.Schemas.User(
            id: user.id.rawValue, email: user.profile.email, phoneNumber: user.profile.phoneNumber, username: user.profile.username, name: user.profile.name,
            emailVerified: user.isEmailVerified, disabled: user.isDisabled, createdAt: user.createdAt, updatedAt: user.updatedAt,
            externalId: user.externalID,
            // Stored as the text of one JSON object, checked when it was imported.
            metadata: user.metadata.flatMap { try? JSONDecoder().decode(Components.Schemas.User.MetadataPayload.self, from: Data($0.utf8)) }
        )
    }

    func credential(_ credential: PasskeyCredential) -> Components.Schemas.Credential {
        Self.credential(credential, names: services.authenticatorNames)
    }

    static func credential(_ credential: PasskeyCredential, names: AuthenticatorNames) -> Components.Schemas.Credential {
        Components.Schemas.Credential(
            id: Base64URL.encode(credential.credentialID), name: credential.name, provider: names.displayName(of: credential),
            aaguid: credential.aaguid.uuidString.lowercased(), backupEligible: credential.isBackupEligible, backedUp: credential.isBackedUp,
            disabled: credential.isDisabled, disabledByAdmin: credential.isDisabledByAdministrator, transports: credential.transports,
            createdAt: credential.createdAt, lastUsedAt: credential.lastUsedAt
        )
    }

    static func event(_ logged: LoggedEvent) throws -> Components.Schemas.Event {
        let event = logged.event
        guard let type = Components.Schemas.EventType(rawValue: event.kind.rawValue) else {
            // The document lists every kind; a test holds the two together.
            throw IdentityError(.invalidRequest, "event \(logged.id) has a type the document does not list: \(event.kind.rawValue)")
        }
        let who = event.actorKind
        let actor = Components.Schemas.Actor(_type: Components.Schemas.Actor._TypePayload(rawValue: who.type) ?? .system, id: who.id)
        return Components.Schemas.Event(
            id: String(logged.id), time: event.time, _type: type, actor: actor, userId: event.userID?.rawValue, clientId: event.clientID,
            credentialId: event.credentialID, ip: event.origin?.ip, userAgent: event.origin?.userAgent,
            face: event.origin?.face.flatMap(Components.Schemas.Event.FacePayload.init(rawValue:)), details: event.detail
        )
    }

    private static func credentialID(_ text: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw IdentityError(.notFound, "this user has no passkey with this ID", reason: .credentialNotFound)
        }
        return bytes
    }

    /// Leaves the RFC 8288 link to the next page for the response's `Link` header.
    private static func linkNext(_ path: String, _ parameters: [(String, String)]) {
        var components = URLComponents()
        components.path = path
        components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        // `+` in a time zone offset would read as a space.
        let query = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        AdminCaller.nextLink?.value.withLock { $0 = "<\(path)?\(query)>; rel=\"next\"" }
    }

    private static var unreadable: IdentityError { IdentityError(.invalidRequest, "the body must be JSON", reason: .unsupportedMediaType) }
}

/// The audit trail as NDJSON, a page of events per chunk, read from the store only as the
/// client takes it (so a long export holds one page in memory, not the trail).
struct EventLines: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let admin: AdminService
    let filter: AuditQuery
    let first: (events: [LoggedEvent], next: String?)

    func makeAsyncIterator() -> Iterator { Iterator(admin: admin, filter: filter, pending: first.events, next: first.next) }

    struct Iterator: AsyncIteratorProtocol {
        let admin: AdminService
        let filter: AuditQuery
        var pending: [LoggedEvent]?
        var next: String?
        private let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            return encoder
        }()

        init(admin: AdminService, filter: AuditQuery, pending: [LoggedEvent], next: String?) {
            self.admin = admin
            self.filter = filter
            self.pending = pending
            self.next = next
        }

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if pending == nil {
                guard let token = next else { return nil }
                let page = try await admin.events(filter, pageSize: AdminService.maximumPageSize, pageToken: token)
                pending = page.events
                next = page.next
            }
            let events = pending ?? []
            pending = nil
            guard !events.isEmpty else { return nil }
            var bytes: [UInt8] = []
            for event in events {
                bytes += try encoder.encode(AdminAPIHandler.event(event))
                bytes.append(0x0A)
            }
            return bytes[...]
        }
    }
}
