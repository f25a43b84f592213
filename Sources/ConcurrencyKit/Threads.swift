#if canImport(Glibc)
package import Glibc
#elseif canImport(Musl)
package import Musl
#endif

/// Starts a plain pthread running `body` and returns its handle (join or detach it), or nil when
/// the system refuses. For work that blocks in system calls (epoll, sockets, condition waits) and
/// must not tie up a thread of Swift's cooperative pool, which has only one per core.
package func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
    let context = Unmanaged.passRetained(ThreadBody(body))
    var handle = pthread_t()
    guard pthread_create(&handle, nil, threadMain, context.toOpaque()) == 0 else {
        context.release()
        return nil
    }
    return handle
}

/// Starts a plain pthread running `body` that nobody joins; false when the system refuses.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    guard let handle = startThread(body) else { return false }
    pthread_detach(handle)
    return true
}

/// Runs blocking work (joining threads, waiting on conditions: a graceful stop) on a thread of its
/// own and suspends the caller until it is done.
package func runOnOwnThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
        let run: @Sendable () -> Void = { continuation.resume(returning: work()) }
        if !startDetachedThread(run) {
            run()  // no thread to be had: run it here rather than not at all
        }
    }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}

private func threadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
    return nil
}
