import ConcurrencyKit
public import Logging

/// Logs an error that repeats (once per refused request while a disk is full, once per failed
/// `accept` while file descriptors run out) as one line, then a count: the first is logged at
/// once; the same error within ``interval`` after it is only counted; the first one after
/// the interval is logged with how many were left out since the line before it.
///
/// A flood that stops inside the interval leaves its count untold until the error comes back
/// (its first line was logged; the next says how many followed). One instance per kind of error;
/// errors of different kinds logged through one instance must pass a `kind` each.
///
/// ```swift
/// static let refusals = RateLimitedLog()
/// Self.refusals.log(.error, "refusing actions while the journal fails: \(failure)", to: logger)
/// ```
public final class RateLimitedLog: Sendable {
    /// How long after a logged line the same error is only counted.
    public let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let windows = Lock([Int: Window]())

    private struct Window {
        var loggedAt: ContinuousClock.Instant
        var leftOut = 0
    }

    /// A log that lets one line per kind through every `interval` (default 10 s).
    public convenience init(interval: Duration = .seconds(10)) {
        self.init(interval: interval, now: { .now })
    }

    /// A log reading the time from `now` (tests pass a clock they move).
    package init(interval: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.interval = interval
        self.now = now
    }

    /// Logs `message` at `level` through `logger`, unless an error of the same `kind` was logged
    /// less than ``interval`` ago: then it is only counted, and the next line logged for that
    /// kind ends with the count. `message` is built only when it is logged.
    public func log(
        _ level: Logger.Level,
        _ message: @autoclosure () -> Logger.Message,
        kind: Int = 0,
        to logger: Logger
    ) {
        guard logger.logLevel <= level else { return }
        let instant = now()
        let leftOut: Int? = windows.withLock { windows in
            if var window = windows[kind], instant < window.loggedAt + interval {
                window.leftOut += 1
                windows[kind] = window
                return nil
            }
            let leftOut = windows[kind]?.leftOut ?? 0
            windows[kind] = Window(loggedAt: instant)
            return leftOut
        }
        guard let leftOut else { return }
        if leftOut == 0 {
            logger.log(level: level, message())
        } else {
            let plural = leftOut == 1 ? "" : "s"
            logger.log(level: level, "\(message()) (\(leftOut) more time\(plural) since the previous line, not logged)")
        }
    }
}
