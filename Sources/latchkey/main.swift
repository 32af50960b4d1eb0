import ArgumentParser
import Foundation

// `serve` runs every Swift task on the NIO event loops that already own the sockets, so a
// request is read, handled and answered on one thread instead of hopping between the loops
// and Swift's own thread pool at each step. It must be installed before the first task
// starts, which is why the command has this entry point rather than `@main`.
// `LATCHKEY_EVENT_LOOP_EXECUTOR=0` leaves Swift's own executor in place (see EventLoopExecutor
// for what the hook buys, measured).
if CommandLine.arguments.dropFirst().first == "serve", ProcessInfo.processInfo.environment["LATCHKEY_EVENT_LOOP_EXECUTOR"] != "0" {
    EventLoopExecutor.install()
}
await Latchkey.runAsync()
