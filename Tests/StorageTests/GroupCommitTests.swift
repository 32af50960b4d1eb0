import Synchronization
import Testing

@testable import StoragePostgres

/// The application's group commit, on its own: who writes when, in which batches, and what
/// each write hears back. The batches' SQL is checked against PostgreSQL by the storage
/// contract (`concurrentLoginsKeepTheirOutcomes`).
@Suite struct GroupCommitTests {
    /// Records every batch written, and holds the first until released, so a test decides
    /// what waits behind it.
    final class Recorder: Sendable {
        let batches = Mutex<[[Int]]>([])
        private let held = Mutex<(waiting: CheckedContinuation<Void, Never>?, released: Bool)>((nil, false))
        let holdsFirst: Bool

        init(holdsFirst: Bool) { self.holdsFirst = holdsFirst }

        func write(_ items: [Int]) async throws -> [String] {
            let first = batches.withLock { batches in
                batches.append(items)
                return batches.count == 1
            }
            if holdsFirst && first {
                await withCheckedContinuation { continuation in
                    let go = held.withLock { state in
                        if state.released { return true }
                        state.waiting = continuation
                        return false
                    }
                    if go { continuation.resume() }
                }
            }
            if items.contains(-1) { throw Failure() }
            return items.map { "written \($0)" }
        }

        /// Lets the first write go on.
        func release() {
            held.withLock { state in
                state.released = true
                return state.waiting.take()
            }?.resume()
        }

        var isHolding: Bool { held.withLock { $0.waiting != nil } }
    }

    struct Failure: Error {}

    @Test func aLoneWriteGoesAtOnceAndAlone() async throws {
        let commit = GroupCommit<Int, String>(maxSize: 32, concurrency: 2)
        let recorder = Recorder(holdsFirst: false)
        for item in 1...3 {
            #expect(try await commit.write(item, with: recorder.write) == "written \(item)")
        }
        #expect(recorder.batches.withLock { $0 } == [[1], [2], [3]], "writes one after another are never held for company")
    }

    @Test func writesThatFindEverySlotBusyGoTogether() async throws {
        let commit = GroupCommit<Int, String>(maxSize: 4, concurrency: 1)
        let recorder = Recorder(holdsFirst: true)
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await commit.write(0, with: recorder.write) == "written 0" }
            while !recorder.isHolding { await Task.yield() }
            // The first is in flight: the next ten wait, and go four by four once it is done.
            for item in 1...10 {
                group.addTask { try await commit.write(item, with: recorder.write) == "written \(item)" }
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(recorder.batches.withLock(\.count) == 1, "nothing else is written while the one slot is busy")
            recorder.release()
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered == 11, "each write hears its own outcome")
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.first == [0])
        #expect(batches.dropFirst().allSatisfy { $0.count <= 4 }, "at most maxSize per batch: \(batches)")
        #expect(batches.count == 4, "ten waiting writes in batches of at most four: \(batches)")
        #expect(batches.flatMap { $0 }.sorted() == Array(0...10), "every write once")
    }

    @Test func aFailedBatchAnswersEachOfItsWritesWithTheFailure() async throws {
        let commit = GroupCommit<Int, String>(maxSize: 8, concurrency: 1)
        let recorder = Recorder(holdsFirst: true)
        let results = try await withThrowingTaskGroup(of: (Int, Result<String, any Error>).self) { group in
            group.addTask { (0, await Self.result { try await commit.write(0, with: recorder.write) }) }
            while !recorder.isHolding { await Task.yield() }
            for item in [5, -1, 7] {
                group.addTask { (item, await Self.result { try await commit.write(item, with: recorder.write) }) }
            }
            try await Task.sleep(for: .milliseconds(100))
            recorder.release()
            return try await group.reduce(into: [Int: Result<String, any Error>]()) { $0[$1.0] = $1.1 }
        }
        #expect(try results[0]?.get() == "written 0")
        for item in [5, -1, 7] {
            guard case .failure(let error)? = results[item], let failed = error as? GroupCommit<Int, String>.BatchFailed else {
                Issue.record("write \(item) should fail with its batch: \(String(describing: results[item]))")
                continue
            }
            #expect(failed.underlying is Failure && failed.size == 3, "the batch's failure and size")
        }
        // The slot was handed on and freed: the next write goes at once, alone.
        #expect(try await commit.write(9, with: recorder.write) == "written 9")
        #expect(recorder.batches.withLock { $0.last } == [9])
    }

    @Test func batchSizeOneWritesEachAtOnceHoweverManyAreInFlight() async throws {
        let commit = GroupCommit<Int, String>(maxSize: 1, concurrency: 1)
        let recorder = Recorder(holdsFirst: true)
        let first = Task { try await commit.write(0, with: recorder.write) }
        while !recorder.isHolding { await Task.yield() }
        #expect(try await commit.write(1, with: recorder.write) == "written 1", "not held behind the write in flight")
        recorder.release()
        #expect(try await first.value == "written 0")
        #expect(recorder.batches.withLock { $0 } == [[0], [1]])
        let failure = await Self.result { try await commit.write(-1, with: recorder.write) }
        guard case .failure(let error) = failure, let failed = error as? GroupCommit<Int, String>.BatchFailed else {
            Issue.record("a failed write is its batch's failure: \(failure)")
            return
        }
        #expect(failed.size == 1 && failed.underlying is Failure)
    }

    @Test func manyWritersAllHearBack() async throws {
        let commit = GroupCommit<Int, String>(maxSize: 32, concurrency: 2)
        let recorder = Recorder(holdsFirst: false)
        let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for item in 0..<2_000 {
                group.addTask { try await commit.write(item, with: recorder.write) == "written \(item)" }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answers == 2_000)
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.flatMap { $0 }.count == 2_000 && batches.allSatisfy { $0.count <= 32 })
    }

    /// Two leaders at once, with writes of uneven length: a leader whose own write another
    /// batch took still hears back, and the slots come free again.
    @Test func overlappingLeadersAllHearBack() async throws {
        let commit = GroupCommit<Int, String>(maxSize: 8, concurrency: 2)
        let write: GroupCommit<Int, String>.Write = { items in
            try await Task.sleep(for: .microseconds(Int.random(in: 0...800)))
            return items.map { "written \($0)" }
        }
        for round in 0..<3 {
            let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
                for item in 0..<600 {
                    group.addTask {
                        if item.isMultiple(of: 7) { try await Task.sleep(for: .microseconds(Int.random(in: 0...300))) }
                        return try await commit.write(item, with: write) == "written \(item)"
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(answers == 600, "round \(round)")
        }
        // Every slot came free: a write now goes at once.
        #expect(try await commit.write(-5, with: write) == "written -5")
    }

    @Test func theURLSetsTheBatchesAndRefusesNonsense() throws {
        let base = "postgres://latchkey@127.0.0.1/latchkey"
        let defaults = try PostgresSettings(url: base)
        #expect(defaults.batchSize == 32 && defaults.batchConcurrency == 1)
        let set = try PostgresSettings(url: base + "?batch_size=1&batch_concurrency=4")
        #expect(set.batchSize == 1 && set.batchConcurrency == 4)
        for bad in ["batch_size=0", "batch_size=257", "batch_size=x", "batch_concurrency=0"] {
            #expect(throws: PostgresSettingsError.self, "\(bad)") { try PostgresSettings(url: base + "?" + bad) }
        }
    }

    private static func result(_ body: () async throws -> String) async -> Result<String, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}
