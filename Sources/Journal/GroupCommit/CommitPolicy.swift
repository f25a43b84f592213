/// The numbers a group commit decides by: how large a transaction may grow, how long a lone
/// record is left to the thread that dispatched it, how long to pause after a failed commit.
/// Given to ``JournalCommitter`` (and through it to every ``GroupCommitJournal`` it commits for);
/// tests shorten or lengthen them instead of waiting for the real ones.
public struct CommitPolicy: Sendable, Equatable {
    /// The most records one store puts in one transaction (a group larger than it goes whole).
    public var maxGroup: Int
    /// How long a record claimed by the thread that dispatched it is left to that thread
    /// (``GroupCommitJournal/commitOnCallingThread(through:)``) before the committer takes it.
    /// Zero: nothing is ever claimed.
    public var claimPatience: Duration
    /// How long after the last claim the committer keeps looking at claims every
    /// ``claimPatience`` without being woken: a client sending requests one after the other then
    /// costs no wake-up of the committer per request; once it stops, the committer sleeps.
    public var claimLinger: Duration
    /// The pause after the first failed commit; it doubles after each further failure.
    public var firstRetryPause: Duration
    /// The longest pause between retries of a failing commit.
    public var longestRetryPause: Duration

    /// Creates a policy; the defaults are the server's (`docs/journal.md`).
    public init(
        maxGroup: Int = 8_192,
        claimPatience: Duration = .milliseconds(2),
        claimLinger: Duration = .milliseconds(100),
        firstRetryPause: Duration = .milliseconds(10),
        longestRetryPause: Duration = .seconds(1)
    ) {
        self.maxGroup = max(1, maxGroup)
        self.claimPatience = claimPatience
        self.claimLinger = claimLinger
        self.firstRetryPause = firstRetryPause
        self.longestRetryPause = max(firstRetryPause, longestRetryPause)
    }
}

/// Where a group commit reads the time its claims run out by. The committer's waits are still
/// real ones (at most ``CommitPolicy/claimPatience`` long); a clock that stands still only keeps
/// claims from lapsing.
public protocol JournalClock: Sendable {
    /// The current instant.
    var now: ContinuousClock.Instant { get }
}

/// The system's monotonic clock.
public struct SystemJournalClock: JournalClock {
    /// Creates the clock.
    public init() {}

    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { ContinuousClock.now }
}
