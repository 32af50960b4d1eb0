import Foundation

/// Runs blocking work (a process's output, a socket read) on a thread of its own and awaits
/// its result, so that the test process's few cooperative threads stay free for the
/// in-process servers the work may be talking to.
///
/// Not on `DispatchQueue.global()`: on Linux its pool has about as many threads as cores and
/// adds one only now and then while they are all blocked, so when many tests wait on
/// processes at once their waits queue behind each other (a suite of a second's work once
/// ran past its two-minute limit that way in the full parallel run).
func blockingWait<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.name = "test-blocking-wait"
        thread.start()
    }
}
