#if canImport(Glibc)
public import Glibc
#elseif canImport(Musl)
public import Musl
#elseif canImport(Darwin)
public import Darwin
#endif

/// Nanoseconds of the system's monotonic clock, for timing what happens on every request: a
/// `ContinuousClock` interval turned into whole nanoseconds goes through `Duration`'s 128-bit
/// attoseconds (about 200 instructions a request, `docs/benchmarks.md`); this is one `vDSO` call.
/// Public so that its inlinable body reaches other modules (one declared `package` does not: see
/// ``Lock/withLock(_:)``).
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary start (fixed while the process runs); never goes back.
    @inlinable
    public static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
