#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a pthread mutex.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer cannot see that type's
/// Linux implementation (every access under it is reported as a race), which would make TSan
/// runs of this module meaningless. Unchecked `Sendable`: `state` is only reached through
/// ``withLock(_:)``, with the mutex held, and `State` itself must be `Sendable`.
final class Lock<State: Sendable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var state: State

    init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state. Do not call back into code that may
    /// take the same lock.
    func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
