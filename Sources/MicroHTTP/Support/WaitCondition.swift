#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A condition variable for "wait until this becomes true, with a deadline" between threads.
///
/// Unchecked `Sendable`: the pthread objects live at fixed heap addresses and are only used
/// through the thread-safe pthread calls below.
final class WaitCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Wakes every waiter so it re-checks its predicate. Change the state first, then notify.
    func notifyAll() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Blocks until `predicate` holds or `timeout` passes; returns the predicate's last value.
    /// The predicate runs with the condition's mutex held: keep it short and lock-free or
    /// taking only leaf locks.
    func wait(timeout: Duration, until predicate: () -> Bool) -> Bool {
        var deadline = Self.monotonicDeadline(after: timeout)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !predicate() {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT {
                return predicate()
            }
        }
        return true
    }

    private static func monotonicDeadline(after timeout: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = max(timeout, .zero).components
        let cappedSeconds = min(seconds, Int64(Int32.max))
        var nanoseconds = Int64(now.tv_nsec) + attoseconds / 1_000_000_000
        var wholeSeconds = Int64(now.tv_sec) + cappedSeconds
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            wholeSeconds += 1
        }
        return timespec(tv_sec: Int(wholeSeconds), tv_nsec: Int(nanoseconds))
    }
}
