#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Blocks the calling (non-cooperative) thread for `duration`: the pause of a reconnect backoff,
/// never a synchronization.
func sleepFor(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR {
        request = remaining
    }
}
