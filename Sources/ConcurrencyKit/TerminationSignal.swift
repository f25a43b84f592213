// Linux only, like the threads: the benchmark servers' way to run until Ctrl-C or `kill`.
#if canImport(Glibc) || canImport(Musl)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch

/// Blocks the calling thread until SIGINT or SIGTERM arrives (both are ignored by the process
/// from then on, and handled here instead).
///
/// A plain function, not a closure inside a `@main` type's `main()`: that is `@MainActor` in
/// Swift 6, and a signal handler closure written there would inherit the isolation and trap when
/// libdispatch runs it on another thread.
package func waitForTerminationSignal() {
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
#endif
