/// The answer to a request sent with an `Idempotency-Key`, kept in the same commit as the actions
/// that request dispatched: a retry with the same key gets it again instead of dispatching twice,
/// also after a restart.
public struct KeptAnswer: Sendable, Equatable {
    /// The client's key (1–255 visible ASCII characters).
    public var key: String
    /// A digest of what the request asked for (method, path, body): a retry must match it.
    public var fingerprint: [UInt8]
    /// The HTTP status of the answer.
    public var status: Int
    /// The answer's body (JSON).
    public var body: [UInt8]
    /// When it was kept, in milliseconds since 1970-01-01 UTC; it expires a retention after that.
    public var time: Int64

    /// Creates a kept answer.
    public init(key: String, fingerprint: [UInt8], status: Int, body: [UInt8], time: Int64) {
        self.key = key
        self.fingerprint = fingerprint
        self.status = status
        self.body = body
        self.time = time
    }
}
