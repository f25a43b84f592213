import ConcurrencyKit

/// A clock that moves only when told (``advance(by:)``): a claim made under it lapses exactly
/// when a test says so, however slow the machine.
public final class ManualJournalClock: JournalClock {
    private let instant: Lock<ContinuousClock.Instant>

    /// A clock standing at the current instant.
    public init() {
        instant = Lock(ContinuousClock.now)
    }

    /// The instant the clock stands at.
    public var now: ContinuousClock.Instant {
        instant.withLock { $0 }
    }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        instant.withLock { $0 += duration }
    }
}
