import IdentityCore
import Testing

// Races that a single-threaded test cannot see. Each runs 20 tasks at once against one store.
extension StorageContract {
    static let racers = 20

    /// Of many concurrent completions of one ceremony, exactly one writes.
    static func concurrentCeremonyCompletion(_ storage: any IdentityStorage) async throws {
        let key = StorageFixtures.ceremonyKey("contested")
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for racer in 0..<racers {
                group.addTask {
                    let event = AuditEvent(time: StorageFixtures.time(Double(racer)), kind: .login, detail: "racer \(racer)", origin: nil)
                    return try await storage.completeCeremony(CeremonyCompletion(key: key, events: [event]))
                }
            }
            return try await group.reduce(into: 0) { winners, won in winners += won ? 1 : 0 }
        }
        #expect(winners == 1, "exactly one completion wins")
        #expect(try await storage.events(userID: nil, limit: 100).count == 1, "and only its event is written")
    }

    /// Many logins finishing at once, of every outcome (a backend may write them together):
    /// each keeps its own. Good logins are written whole; a login verified against a counter
    /// that moved is stale and writes nothing; of many finishes of one ceremony exactly one
    /// wins; a ceremony finished before stays finished; two ceremonies with one passkey do
    /// not both store their counter unless both were current.
    static func concurrentLoginsKeepTheirOutcomes(_ storage: any IdentityStorage) async throws {
        enum Kind: Sendable { case good(Int), stale(Int), replay(Int), finishedBefore, samePasskey(Int) }
        let good = 8, stale = 4, replays = 12
        var accounts: [(User, PasskeyCredential)] = []
        for index in 0..<(good + stale + 3) {
            accounts.append(try await signUp("login\(index)", on: storage))
        }
        let accountsSnapshot = accounts
        let replayed = accounts[good + stale], shared = accounts[good + stale + 1], before = accounts[good + stale + 2]
        func completion(_ label: String, _ account: (User, PasskeyCredential), counter: UInt32, verifiedCounter: UInt32) -> CeremonyCompletion {
            let (user, credential) = account
            let use = CredentialUse(signCount: counter, isBackedUp: true, isUserVerified: true, usedAt: StorageFixtures.time(30), signCountRegressed: false)
            return CeremonyCompletion(
                key: StorageFixtures.ceremonyKey(label),
                credentialUse: .init(credentialID: credential.credentialID, use: use, verifiedAgainst: .init(signCount: verifiedCounter, ownerUpdatedAt: user.updatedAt)),
                events: [AuditEvent(time: StorageFixtures.time(30), kind: .login, userID: user.id, detail: label, origin: RequestOrigin(ip: "192.0.2.\(label.count)", userAgent: "ua \(label)", face: "oidc"))],
                session: .tokens(TokenSessionStart(
                    familyID: "family-\(label)", userID: user.id, clientID: "client-a", startedAt: StorageFixtures.time(30),
                    refreshToken: StorageFixtures.refreshToken(label, familyID: "family-\(label)", userID: user.id), credentialID: credential.credentialID
                ))
            )
        }
        let base = before.1.signCount
        #expect(try await storage.completeCeremony(completion("before", before, counter: base + 1, verifiedCounter: base)))

        var jobs: [(Kind, CeremonyCompletion)] = []
        for index in 0..<good {
            let account = accountsSnapshot[index]
            jobs.append((.good(index), completion("good\(index)", account, counter: account.1.signCount + 1, verifiedCounter: account.1.signCount)))
        }
        for index in 0..<stale {
            let account = accountsSnapshot[good + index]
            jobs.append((.stale(good + index), completion("stale\(index)", account, counter: account.1.signCount + 9, verifiedCounter: account.1.signCount + 7)))
        }
        for racer in 0..<replays {
            jobs.append((.replay(racer), completion("replayed", replayed, counter: replayed.1.signCount + 1, verifiedCounter: replayed.1.signCount)))
        }
        jobs.append((.finishedBefore, completion("before", before, counter: base + 2, verifiedCounter: base + 1)))
        for step in 1...2 {
            jobs.append((.samePasskey(step), completion("shared\(step)", shared, counter: shared.1.signCount + UInt32(step), verifiedCounter: shared.1.signCount)))
        }

        let results = await withTaskGroup(of: (Kind, Result<Bool, any Error>).self) { group in
            for (kind, completion) in jobs {
                group.addTask {
                    do { return (kind, .success(try await storage.completeCeremony(completion))) } catch { return (kind, .failure(error)) }
                }
            }
            return await group.reduce(into: [(Kind, Result<Bool, any Error>)]()) { $0.append($1) }
        }
        var replayWins = 0, sharedWins: [Int] = []
        for (kind, result) in results {
            switch (kind, result) {
            case (.good(let index), .success(let won)):
                #expect(won, "good login \(index) is written")
            case (.stale(let index), .failure(let error)):
                #expect(error is StaleRead, "stale login \(index): \(error)")
            case (.replay, .success(let won)):
                replayWins += won ? 1 : 0
            case (.replay, .failure(let error)):
                // A racer that read the passkey before the winner changed it is told so; its
                // service verifies again and then finds the ceremony finished.
                #expect(error is StaleRead, "a replay fails only as stale: \(error)")
            case (.finishedBefore, .success(let won)):
                #expect(!won, "a ceremony finished before stays finished")
            case (.samePasskey(let step), .success(let won)):
                if won { sharedWins.append(step) }
            case (.samePasskey, .failure(let error)):
                #expect(error is StaleRead, "a login beside another with its passkey fails only as stale: \(error)")
            default:
                Issue.record("unexpected outcome \(result) for \(kind)")
            }
        }
        #expect(replayWins == 1, "exactly one finish of a ceremony wins, not \(replayWins)")
        #expect(!sharedWins.isEmpty && sharedWins.count <= 2, "one login with the shared passkey at least: \(sharedWins)")

        for index in 0..<good {
            let (user, credential) = accountsSnapshot[index]
            #expect(try await storage.credential(id: credential.credentialID)?.signCount == credential.signCount + 1, "good login \(index)'s counter")
            #expect(try await storage.isSessionActive(familyID: "family-good\(index)", userID: user.id), "good login \(index)'s session")
            let events = try await storage.events(userID: user.id, limit: 10)
            #expect(events.map(\.detail) == ["good\(index)"], "good login \(index)'s one event")
            #expect(events.first?.origin == RequestOrigin(ip: "192.0.2.\("good\(index)".count)", userAgent: "ua good\(index)", face: "oidc"), "its request")
        }
        for index in good..<(good + stale) {
            let (user, credential) = accountsSnapshot[index]
            #expect(try await storage.credential(id: credential.credentialID)?.signCount == credential.signCount, "a stale login changed nothing")
            #expect(try await storage.events(userID: user.id, limit: 10).isEmpty, "a stale login wrote no event")
            #expect(try await storage.isSessionActive(familyID: "family-stale\(index - good)", userID: user.id) == false)
        }
        #expect(try await storage.events(userID: replayed.0.id, limit: 20).count == 1, "one event for the replayed ceremony")
        #expect(try await storage.credential(id: replayed.1.credentialID)?.signCount == replayed.1.signCount + 1)
        #expect(try await storage.credential(id: before.1.credentialID)?.signCount == base + 1, "the finished ceremony's replay changed nothing")
        let sharedEvents = try await storage.events(userID: shared.0.id, limit: 10).map(\.detail)
        #expect(Set(sharedEvents) == Set(sharedWins.map { "shared\($0)" }), "the shared passkey's events are its winners': \(sharedEvents)")
        let sharedCount = try #require(try await storage.credential(id: shared.1.credentialID)?.signCount)
        #expect(sharedWins.contains(Int(sharedCount - shared.1.signCount)), "the shared passkey's counter is a winner's")
    }

    /// Of many concurrent sign-ups with one email, exactly one succeeds; the others get an
    /// identifier conflict and leave nothing behind.
    static func concurrentSignupsWithOneEmail(_ storage: any IdentityStorage) async throws {
        let attempts = (0..<racers).map { racer in
            let user = StorageFixtures.user("racer\(racer)", email: "race@example.com")
            return (user, StorageFixtures.credential("racer\(racer)", userID: user.id))
        }
        let results = await withTaskGroup(of: (Int, Result<Void, any Error>).self) { group in
            for (index, (user, credential)) in attempts.enumerated() {
                group.addTask {
                    do {
                        try await storage.createUser(user, credential: credential)
                        return (index, .success(()))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [Int: Result<Void, any Error>]()) { $0[$1.0] = $1.1 }
        }
        let succeeded = results.filter { if case .success = $0.value { true } else { false } }.map(\.key)
        #expect(succeeded.count == 1, "exactly one sign-up succeeds")
        for (index, result) in results where index != succeeded.first {
            guard case .failure(let error) = result else { continue }
            #expect(error as? StoreConflict == StoreConflict(.identifier), "racer \(index) fails with an identifier conflict, not \(error)")
        }

        let winnerIndex = try #require(succeeded.first)
        let (winner, winnerCredential) = attempts[winnerIndex]
        #expect(try await storage.user(identifier: .email("race@example.com")) == winner)
        #expect(try await storage.credentials(userID: winner.id) == [winnerCredential])
        for (index, (user, credential)) in attempts.enumerated() where index != winnerIndex {
            #expect(try await storage.user(id: user.id) == nil, "racer \(index) left no user")
            #expect(try await storage.credential(id: credential.credentialID) == nil, "racer \(index) left no credential")
        }
    }

    /// Of many concurrent presentations of one refresh token, one rotates it; the others are
    /// replays, so the family ends revoked.
    static func concurrentRefreshTokenRotation(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let token = StorageFixtures.refreshToken("contested", familyID: "family-1", userID: alice.id)
        try await storage.saveRefreshToken(token)
        let outcomes = try await withThrowingTaskGroup(of: RefreshOutcome.self) { group in
            for racer in 0..<racers {
                group.addTask {
                    try await storage.rotateRefreshToken(
                        hash: token.tokenHash, clientID: "client-a", newHash: StorageFixtures.tokenHash("new-\(racer)"),
                        newExpiresAt: StorageFixtures.time(7200), at: StorageFixtures.time(60)
                    )
                }
            }
            return try await group.reduce(into: [RefreshOutcome]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .rotated(previous: token) }.count == 1, "exactly one rotation")
        let others = outcomes.filter { $0 != .rotated(previous: token) }
        #expect(others.allSatisfy { $0 == .reused(familyID: "family-1", userID: alice.id) || $0 == .invalid }, "\(others)")
        #expect(others.contains(.reused(familyID: "family-1", userID: alice.id)), "the first replay is detected as reuse")
        #expect(try await storage.isSessionActive(familyID: "family-1", userID: alice.id) == false)
    }

    /// Many rotations at once, of every outcome (a backend may write them together): each
    /// keeps its own. Current tokens, first of their family or rotated before, rotate; a
    /// used one revokes its family; an expired, unknown or other client's one is invalid.
    static func concurrentRotationsKeepTheirOutcomes(_ storage: any IdentityStorage) async throws {
        let (alice, _) = try await signUp("alice", on: storage)
        let current = (0..<12).map { StorageFixtures.refreshToken("current\($0)", familyID: "family-\($0)", userID: alice.id) }
        for token in current { try await storage.saveRefreshToken(token) }
        // Family 0's first token rotated before: its replacement is current, the first is used.
        let replacement = StorageFixtures.tokenHash("replacement0")
        #expect(try await storage.rotateRefreshToken(
            hash: current[0].tokenHash, clientID: "client-a", newHash: replacement, newExpiresAt: StorageFixtures.time(7200), at: StorageFixtures.time(10)
        ) == .rotated(previous: current[0]))
        let expired = StorageFixtures.refreshToken("expired", familyID: "family-expired", userID: alice.id, expiresIn: 5)
        try await storage.saveRefreshToken(expired)

        enum Kind: Sendable { case rotates(Int), replay, expired, unknown, otherClient }
        var jobs: [(Kind, [UInt8], String)] = (1..<12).map { (.rotates($0), current[$0].tokenHash, "client-a") }
        jobs += [
            (.rotates(0), replacement, "client-a"), (.replay, current[0].tokenHash, "client-a"), (.expired, expired.tokenHash, "client-a"),
            (.unknown, StorageFixtures.tokenHash("nobody"), "client-a"), (.otherClient, current[5].tokenHash, "client-b"),
        ]
        let outcomes = try await withThrowingTaskGroup(of: (Kind, [UInt8], RefreshOutcome).self) { group in
            for (index, (kind, hash, client)) in jobs.enumerated() {
                group.addTask {
                    (kind, hash, try await storage.rotateRefreshToken(
                        hash: hash, clientID: client, newHash: StorageFixtures.tokenHash("next\(index)"), newExpiresAt: StorageFixtures.time(7200),
                        at: StorageFixtures.time(60)
                    ))
                }
            }
            return try await group.reduce(into: [(Kind, [UInt8], RefreshOutcome)]()) { $0.append($1) }
        }
        for (kind, hash, outcome) in outcomes {
            switch kind {
            case .rotates(let family):
                guard case .rotated(let previous) = outcome else {
                    // Family 0's replacement may meet the replay of its first token, which
                    // revokes the family first: then it is refused.
                    #expect(family == 0 && outcome == .invalid, "family \(family)'s current token: \(outcome)")
                    continue
                }
                #expect(previous.tokenHash == hash && previous.familyID == "family-\(family)", "rotated as itself")
            case .replay:
                #expect(outcome == .reused(familyID: "family-0", userID: alice.id), "a used token is a replay")
            case .expired, .unknown, .otherClient:
                #expect(outcome == .invalid, "\(kind): \(outcome)")
            }
        }
        #expect(try await storage.isSessionActive(familyID: "family-0", userID: alice.id) == false, "the replay revoked its family")
        for family in 1..<12 {
            #expect(try await storage.isSessionActive(familyID: "family-\(family)", userID: alice.id), "family \(family) lives on")
            let index = try #require(jobs.firstIndex { if case .rotates(family) = $0.0 { true } else { false } })
            let next = try #require(try await storage.refreshToken(hash: StorageFixtures.tokenHash("next\(index)")), "family \(family)'s replacement is stored")
            #expect(next.familyID == "family-\(family)" && next.scopes == current[family].scopes && next.expiresAt == StorageFixtures.time(7200))
        }
        #expect(try await storage.refreshToken(hash: StorageFixtures.tokenHash("next\(jobs.count - 1)")) == nil, "another client's presentation stored nothing")
    }

    /// Deleting a user's last two credentials at once removes exactly one.
    static func concurrentCredentialDeletion(_ storage: any IdentityStorage) async throws {
        let (alice, first) = try await signUp("alice", on: storage)
        let second = StorageFixtures.credential("alice-2", userID: alice.id)
        try await storage.addCredential(second)
        let outcomes = try await withThrowingTaskGroup(of: CredentialDeletion.self) { group in
            for racer in 0..<racers {
                let target = racer.isMultiple(of: 2) ? first : second
                group.addTask { try await storage.deleteCredential(id: target.credentialID, userID: alice.id, at: StorageFixtures.time(9)) }
            }
            return try await group.reduce(into: [CredentialDeletion]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .deleted }.count == 1, "exactly one deletion: \(outcomes)")
        #expect(try await storage.credentials(userID: alice.id).count == 1, "alice can still sign in")
    }

    /// Concurrent first uses of a secret all get the one value stored.
    static func concurrentSecretCreation(_ storage: any IdentityStorage) async throws {
        let values = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for racer in 0..<racers {
                group.addTask { try await storage.secret(named: "contested", orStore: [UInt8(racer)]) }
            }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(values.count == 1, "every caller sees the same secret: \(values)")
        #expect(try await storage.secret(named: "contested", orStore: [0xFF]) == values.first)
    }
}
