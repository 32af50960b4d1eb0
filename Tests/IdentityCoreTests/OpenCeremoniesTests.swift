import Foundation
import IdentityCore
import Testing
import Synchronization

/// The open-ceremony count: up as ceremonies start, down as they finish or expire, never
/// below zero, and the same whatever order events come in.
@Suite("Open ceremonies")
struct OpenCeremoniesTests {
    @Test func startsFinishesAndExpiries() {
        let reported = Mutex<[Int]>([])
        let open = OpenCeremonies { value in reported.withLock { $0.append(value) } }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        open.started(expiresAt: now + 300, now: now)
        open.started(expiresAt: now + 300, now: now)
        open.started(expiresAt: now + 3600, now: now)
        #expect(open.count(at: now) == 3)
        open.finished(expiresAt: now + 300, now: now + 10)
        #expect(open.count(at: now + 10) == 2)
        // A finish with no start (a replayed or foreign key) does not go below zero.
        open.finished(expiresAt: now + 900, now: now + 10)
        #expect(open.count(at: now + 10) == 2)
        // The abandoned 5-minute ceremony leaves the count once its minute has passed.
        #expect(open.count(at: now + 420) == 1)
        #expect(open.count(at: now + 3700) == 0)
        // A day later, every bucket is looked at once.
        open.started(expiresAt: now + 90_000 + 60, now: now + 90_000)
        #expect(open.count(at: now + 90_000) == 1)
        #expect(reported.withLock { $0 } == [1, 2, 3, 2, 2, 1])
    }
}
