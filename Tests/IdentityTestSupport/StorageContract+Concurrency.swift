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
