import ConcurrencyKit
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Blocks until SIGINT or SIGTERM arrives.
///
/// A plain function in its own file, not a closure inside `main()`: a `@main` type's `main()` is
/// `@MainActor` in Swift 6, and a signal handler closure written there would inherit that isolation
/// and trap when libdispatch runs it on another thread.
func waitForTerminationSignal() {
    let stop = Lock(false)
    let queue = DispatchQueue(label: "signals")
    let sources = [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler {
            stop.withLock { $0 = true }
            stop.notifyAll()
        }
        source.resume()
        return source
    }
    stop.withLock(waitingUntil: { $0 }) { _ in }
    sources.forEach { $0.cancel() }
}
