#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs blocking work (joining threads, waiting on conditions: a graceful stop) on a thread of its
/// own and suspends the caller until it is done, so it never ties up a thread of Swift's
/// cooperative pool, which has only one per core.
package func runOnOwnThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
        let job = OwnThreadJob {
            continuation.resume(returning: work())
        }
        let context = Unmanaged.passRetained(job)
        var handle = pthread_t()
        if pthread_create(&handle, nil, ownThreadMain, context.toOpaque()) == 0 {
            pthread_detach(handle)
        } else {
            // No thread to be had: run it here rather than not at all.
            context.release()
            job.run()
        }
    }
}

private final class OwnThreadJob: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}

private func ownThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    Unmanaged<OwnThreadJob>.fromOpaque(context).takeRetainedValue().run()
    return nil
}
