public import FaceFrame
import Foundation
import HTTPTypes
public import Hummingbird
import IdentityCore
import NIOCore
import WebAuthn

/// The bodies of the console's sign-in calls.
struct ConsoleSignInFinish: Decodable {
    let auth_session: String
    let response: PublicKeyCredentialResponse
    let return_to: String?
}

extension Router where Context == FaceRequestContext {
    /// Adds the operator console under `/console`: its sign-in, its pages for every
    /// operator, and its changes for admins, behind the Admin API's address rule.
    public func addConsole(_ console: OperatorConsole) {
        let all = group(RouterPath(OperatorConsole.path), context: ConsoleContext.self)
            .add(middleware: ConsoleErrorMiddleware(siteName: console.siteName))
            .add(middleware: ConsoleAddressMiddleware(isPublic: console.isPublic))
            .add(middleware: ConsoleAuthenticator(console: console))
        ConsoleRoutes.addAssets(all)
        ConsoleRoutes.addSignIn(all, console)
        let pages = all.group().add(middleware: ConsoleOperatorRequired())
        ConsoleRoutes.addPages(pages, console)
        pages.post("logout") { request, context in
            let fields = try console.body.form(from: try await console.body.bytes(of: request))
            try console.checkCSRF(request, token: fields["csrf"])
            try await console.sessions.end(token: Cookies.value(console.sessionCookie, in: request), origin: context.origin)
            return PageResponses.redirect(ConsoleRoutes.signInURL(returningTo: OperatorConsole.path), status: .seeOther, setCookies: [console.cookie(console.sessionCookie, "", maxAge: 0)])
        }
        ConsoleRoutes.addChanges(pages.group().add(middleware: ConsoleChangeMiddleware(console: console)), console)
    }
}

/// The console's routes, by what they do.
enum ConsoleRoutes {
    /// Where the sign-in page's script calls.
    static let signInCalls = OperatorConsole.path + "/login/"

    /// The sign-in page that comes back to `path`.
    static func signInURL(returningTo path: String, stepUp: Bool = false) -> String {
        OperatorConsole.path + "/login" + ConsolePages.query([("return_to", path), ("step_up", stepUp ? "1" : nil)])
    }

    /// Where to go after signing in: a console page only.
    static func returnTo(_ text: String?) -> String {
        guard let text, text.hasPrefix(OperatorConsole.path), !text.hasPrefix("//"), text.utf8.count <= 2048,
            !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0 == "\\" || $0.value == 0x7F })
        else { return OperatorConsole.path }
        return text
    }

    static func addAssets(_ all: RouterGroup<ConsoleContext>) {
        for (name, resource, type) in [("console.css", "console", "css"), ("console.js", "console", "js"), ("latchkey.js", "latchkey", "js")] {
            guard let bytes = Assets.load(resource, type) else { continue }
            let headers: HTTPFields = [
                .contentType: type == "js" ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8", .cacheControl: "public, max-age=300",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            ]
            all.get(RouterPath("assets/" + name)) { _, _ in Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))) }
        }
    }

    /// The sign-in page and its two calls: the passkey ceremony of the one pipeline, for the
    /// console's own client; the session it starts is the console's, and only an operator's.
    static func addSignIn(_ all: RouterGroup<ConsoleContext>, _ console: OperatorConsole) {
        all.get("login") { request, context in
            let query = try console.query(request)
            let stepUp = query["step_up"] == "1"
            let returnTo = returnTo(query["return_to"])
            if !stepUp, context.identity?.role != nil { return PageResponses.redirect(returnTo) }
            let csrf = console.csrfToken(for: request)
            let page = ConsoleLayout(siteName: console.siteName, title: "Sign in", section: nil, identity: nil, csrfToken: csrf.token)
            return PageResponses.html(page.render(ConsolePages.signIn(returnTo: returnTo, stepUp: stepUp)), setCookies: csrf.setCookie.map { [$0] } ?? [])
        }
        all.post("login/options") { request, _ in
            try console.checkCSRF(request, token: request.headers[HTTPField.Name("X-CSRF-Token")!])
            let challenge = try await console.passkeys.startLogin(client: .console, username: nil)
            return JSONResponse.make(CeremonyOptions(options: challenge.options, auth_session: challenge.authSession))
        }
        all.post("login/finish") { request, context in
            try console.checkCSRF(request, token: request.headers[HTTPField.Name("X-CSRF-Token")!])
            let body = try await console.body.json(ConsoleSignInFinish.self, from: request)
            // The console is for operators only: a sign-in of anyone else is recorded as the
            // sign-in it is, and starts no session.
            let operators = Set(try await console.admin.operators().map(\.userID))
            let (_, started) = try await console.passkeys.finishCeremony(
                client: .console, authSession: body.auth_session, response: body.response, origin: context.origin, failureCheck: context.failureCheck,
                startSession: { signedIn -> (SessionRecord?, (token: String, session: BrowserSession)?) in
                    guard operators.contains(signedIn.user.id) else { return (nil, nil) }
                    let begun = console.sessions.begin(signedIn)
                    return (begun.0, begun.1)
                }
            )
            guard let token = started?.token else { throw ConsoleRefusal.notAnOperator }
            // A step-up replaces the session it refreshes.
            if let earlier = Cookies.value(console.sessionCookie, in: request) { try await console.sessions.end(token: earlier, origin: context.origin) }
            return JSONResponse.make(
                ["redirect_to": returnTo(body.return_to)], headers: [.setCookie: console.cookie(console.sessionCookie, token, maxAge: Int(OperatorConsole.sessionLifetime))]
            )
        }
    }

    static func addPages(_ pages: RouterGroup<ConsoleContext>, _ console: OperatorConsole) {
        pages.get("") { request, context in
            let now = console.clock.now()
            let days = 30
            let (intervals, active) = try await console.stats.overview(from: now.addingTimeInterval(-Double(days - 1) * 86_400), to: now)
            return try console.page(request, context, .overview, ConsoleOverviewPage.render(intervals, active: active, names: console.names, days: days))
        }
        pages.get("users") { request, context in
            let query = try console.query(request)
            let search = query["q"]?.trimmingCharacters(in: .whitespaces) ?? ""
            let page = try await console.admin.users(identifier: nil, identifierPrefix: search.isEmpty ? nil : search, pageSize: 50, pageToken: query["page"])
            return try console.page(request, context, .users, ConsoleUserPages.list(page.users, query: search, next: page.next))
        }
        pages.get("users/:id") { request, context in
            let account = try await console.account(try context.parameters.require("id"))
            return try console.userPage(request, context, account)
        }
        pages.get("events") { request, context in
            let query = try console.query(request)
            let filters = ConsoleEventsPage.Filters(query)
            let page = try await console.admin.events(try filters.auditQuery(), pageSize: 50, pageToken: query["page"])
            return try console.page(request, context, .events, ConsoleEventsPage.render(page.events, filters: filters, next: page.next))
        }
        pages.get("events/export") { request, _ in
            let filter = try ConsoleEventsPage.Filters(try console.query(request)).auditQuery()
            // The first page is read before answering, so that a database that is down gets a
            // page that says so rather than a cut file.
            let first = try await console.admin.events(filter, pageSize: AdminService.maximumPageSize, pageToken: nil)
            let admin = console.admin
            let body = ResponseBody { writer in
                var page = first
                while true {
                    try await writer.write(ByteBuffer(bytes: page.events.flatMap(ConsoleEventsPage.line)))
                    guard let next = page.next else { break }
                    page = try await admin.events(filter, pageSize: AdminService.maximumPageSize, pageToken: next)
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [
                .contentType: "application/x-ndjson", .cacheControl: "no-store", .contentDisposition: "attachment; filename=\"events.ndjson\"",
            ], body: body)
        }
        pages.get("webhooks") { request, context in
            try await console.webhooksPage(request, context)
        }
        pages.get("keys") { request, context in
            try await console.keysPage(request, context, createdKey: nil)
        }
    }
}

extension OperatorConsole {
    /// A page of a section in the console's frame, with the CSRF cookie when the browser
    /// has none yet.
    func page(_ request: Request, _ context: ConsoleContext, _ section: ConsoleLayout.Section, _ content: String, title: String? = nil) throws -> Response {
        let csrf = csrfToken(for: request)
        var layout = ConsoleLayout(siteName: siteName, title: title ?? section.title, section: section, identity: context.identity, csrfToken: csrf.token)
        if section == .overview { layout.refreshSeconds = 60 }
        let notice = ConsoleRoutes.notice(try query(request)).map { "<p class=\"notice\" role=\"status\">\(HTML.escape($0))</p>\n" } ?? ""
        return PageResponses.html(layout.render(notice + content), setCookies: csrf.setCookie.map { [$0] } ?? [])
    }

    /// The request's query string, read strictly.
    func query(_ request: Request) throws -> [String: String] {
        guard let query = request.uri.query, !query.isEmpty else { return [:] }
        return try body.form(from: ByteBuffer(string: query))
    }

    /// Everything one user's page shows.
    func account(_ id: String) async throws -> ConsoleUserPages.Account {
        let userID = UserID(rawValue: id)
        let user = try await admin.user(id: userID)
        let credentials = try await admin.credentials(userID: userID)
        return ConsoleUserPages.Account(
            user: user, role: try await admin.operatorRole(userID: userID), passkeys: credentials.passkeys, hasPassword: credentials.hasPassword,
            sessions: try await admin.sessions(userID: userID), events: try await admin.events(AuditQuery(userID: userID, limit: 0), pageSize: 20, pageToken: nil).events
        )
    }

    func userPage(_ request: Request, _ context: ConsoleContext, _ account: ConsoleUserPages.Account) throws -> Response {
        let csrf = csrfToken(for: request).token
        let content = ConsoleUserPages.user(account, names: names, canChange: context.identity?.canChange ?? false, csrf: csrf, now: clock.now())
        return try page(request, context, .users, content, title: account.user.profile.email ?? account.user.id.rawValue)
    }

    func webhooksPage(_ request: Request, _ context: ConsoleContext) async throws -> Response {
        let query = try self.query(request)
        let status = query["status"] ?? ""
        guard status.isEmpty || WebhookDeliveryStatus(rawValue: status) != nil else {
            throw IdentityError(.invalidRequest, "status must be pending, delivered or failed", field: "status")
        }
        let deliveries = try await admin.webhookDeliveries(status: WebhookDeliveryStatus(rawValue: status), pageSize: 50, pageToken: query["page"])
        let content = ConsoleWebhooksPage.render(
            endpoints: webhookEndpoints, off: try await admin.disabledWebhookEndpoints(), deliveries: deliveries.deliveries, status: status, next: deliveries.next,
            canChange: context.identity?.canChange ?? false, csrf: csrfToken(for: request).token
        )
        return try page(request, context, .webhooks, content)
    }

    /// The operators with their accounts (an operator's account is deleted with its role, so
    /// each has one, unless it went in between).
    private func operatorsWithAccounts() async throws -> [(Operator, User?)] {
        var listed: [(Operator, User?)] = []
        for found in try await admin.operators() { listed.append((found, try? await admin.user(id: found.userID))) }
        return listed
    }

    func keysPage(_ request: Request, _ context: ConsoleContext, createdKey: String?) async throws -> Response {
        let content = ConsoleKeysPage.render(
            metadata: metadata, keys: try await admin.keys(), operators: try await operatorsWithAccounts(), createdKey: createdKey,
            canChange: context.identity?.canChange ?? false, csrf: csrfToken(for: request).token
        )
        return try page(request, context, .keys, content)
    }
}
