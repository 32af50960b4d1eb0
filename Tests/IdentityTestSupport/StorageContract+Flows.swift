import IdentityCore
import Testing

extension StorageContract {
    static func flow(_ id: String, user: UserID? = nil, expiresAt: Double = 3600) -> InteractiveFlow {
        InteractiveFlow(
            id: id, kind: user == nil ? .login : .settings, isBrowser: user == nil, ceremonyID: "ceremony-1", options: Array("{\"a\":1}".utf8),
            userID: user, csrfToken: user == nil ? "csrf" : nil, requestURL: "https://id.example/self-service/login/api",
            issuedAt: StorageFixtures.time(0), expiresAt: StorageFixtures.time(expiresAt)
        )
    }

    /// A flow round-trips, is renewed until it completes, completes once, and is purged
    /// after it expires.
    static func flowLifecycle(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let login = flow("f-login")
        let settings = flow("f-settings", user: alice.id)
        try await storage.saveFlow(login)
        try await storage.saveFlow(settings)
        #expect(try await storage.flow(id: "f-login") == login)
        #expect(try await storage.flow(id: "f-settings") == settings)
        #expect(try await storage.flow(id: "f-unknown") == nil)

        #expect(try await storage.renewFlow(id: "f-login", ceremonyID: "ceremony-2", options: [1, 2, 3]))
        var renewed = login
        renewed.ceremonyID = "ceremony-2"
        renewed.options = [1, 2, 3]
        #expect(try await storage.flow(id: "f-login") == renewed)
        #expect(try await storage.renewFlow(id: "f-unknown", ceremonyID: "c", options: []) == false)

        #expect(try await storage.completeFlow(id: "f-login", at: StorageFixtures.time(10)))
        #expect(try await storage.completeFlow(id: "f-login", at: StorageFixtures.time(11)) == false, "a flow completes once")
        #expect(try await storage.renewFlow(id: "f-login", ceremonyID: "ceremony-3", options: []) == false, "a completed flow is not renewed")
        #expect(try await storage.flow(id: "f-login")?.completedAt == StorageFixtures.time(10))
        #expect(try await storage.flow(id: "f-login")?.ceremonyID == "ceremony-2")

        try await storage.purgeFlows(expiredBefore: StorageFixtures.time(3600))
        #expect(try await storage.flow(id: "f-login") != nil, "not yet expired before its expiry")
        try await storage.purgeFlows(expiredBefore: StorageFixtures.time(3601))
        #expect(try await storage.flow(id: "f-login") == nil)
        #expect(try await storage.flow(id: "f-settings") == nil)
    }

    /// Of many concurrent completions of one flow, exactly one wins.
    static func concurrentFlowCompletion(_ storage: any IdentityStorage) async throws {
        try await storage.saveFlow(flow("f-race"))
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for attempt in 0..<16 { group.addTask { try await storage.completeFlow(id: "f-race", at: StorageFixtures.time(Double(attempt))) } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
    }

    /// A ceremony's finish completes its flow in the same write: a finish refused as a
    /// replay leaves the flow open, and a finish that fails leaves it as it was.
    static func aFinishCompletesItsFlow(_ storage: any IdentityStorage) async throws {
        try await storage.saveFlow(flow("f-finish"))
        try await storage.saveFlow(flow("f-replayed"))
        try await storage.saveFlow(flow("f-failed"))
        let key = StorageFixtures.ceremonyKey("flow-finish")
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: key, finishedFlow: (id: "f-finish", at: StorageFixtures.time(5)))))
        #expect(try await storage.flow(id: "f-finish")?.completedAt == StorageFixtures.time(5))
        #expect(try await storage.completeCeremony(CeremonyCompletion(key: key, finishedFlow: (id: "f-replayed", at: StorageFixtures.time(6)))) == false)
        #expect(try await storage.flow(id: "f-replayed")?.completedAt == nil, "a replayed ceremony completes no flow")

        // A sign-up whose passkey another account holds fails whole: its flow stays open.
        _ = try await signUp("owner", on: storage)
        let user = StorageFixtures.user("newcomer")
        let credential = StorageFixtures.credential("owner-1", userID: user.id)
        await #expect(throws: (any Error).self) {
            try await storage.completeCeremony(CeremonyCompletion(
                key: StorageFixtures.ceremonyKey("flow-failed"), newAccount: .init(user: user, credential: credential),
                finishedFlow: (id: "f-failed", at: StorageFixtures.time(7))
            ))
        }
        #expect(try await storage.flow(id: "f-failed")?.completedAt == nil, "nothing half-written")
    }
}
