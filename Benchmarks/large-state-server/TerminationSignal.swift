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
    let stop = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "signals")
    let sources = [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler { stop.signal() }
        source.resume()
        return source
    }
    stop.wait()
    sources.forEach { $0.cancel() }
}
