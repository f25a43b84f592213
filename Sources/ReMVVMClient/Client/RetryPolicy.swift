/// When and how often the client retries a dispatch or reopens an event stream: exponential backoff
/// with jitter, on network errors and on `503` (and `409 idempotency-key-in-flight`), never on
/// other `4xx` answers.
public struct RetryPolicy: Sendable {
    /// The delay before the first retry.
    public var initialDelay: Duration
    /// The longest delay between two attempts.
    public var maximumDelay: Duration
    /// How many attempts in all (the first included); nil for no limit.
    public var maximumAttempts: Int?

    /// Creates a policy; the default retries for about a minute (12 attempts, from 100 ms up to 10 s).
    public init(initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(10), maximumAttempts: Int? = 12) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// Retries for as long as the task runs (until cancelled): for apps that queue actions offline.
    public static let forever = RetryPolicy(maximumAttempts: nil)

    /// Whether another attempt may follow attempt number `attempt` (1 for the first).
    func allowsAttempt(after attempt: Int) -> Bool {
        maximumAttempts.map { attempt < $0 } ?? true
    }

    /// The delay after attempt number `attempt`: doubling from ``initialDelay`` up to
    /// ``maximumDelay``, then a random part of it (half to all), so that clients cut off together
    /// do not come back together. A server's `Retry-After` is the least delay.
    func delay(after attempt: Int, retryAfter: Duration? = nil) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(attempt, 1) where delay < maximumDelay {
            delay *= 2
        }
        delay = min(delay, maximumDelay)
        delay = delay * Double.random(in: 0.5...1)
        return max(delay, retryAfter ?? .zero)
    }
}
