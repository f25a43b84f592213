import Synchronization

/// What a responder remembers on one client connection from one request to the next: one
/// object, kept while the connection is open (``Request/connectionMemo``).
///
/// A keep-alive client sends request after request on its connection, most often with the same
/// credential: the access gate keeps the credential it verified there and skips verifying it
/// again while the next request carries the same field. A connection is served by one worker
/// thread at a time, so the lock is never contended; it keeps the memo safe anyway.
public final class ConnectionMemo: Sendable {
    private let stored = Mutex<(any AnyObject & Sendable)?>(nil)

    /// An empty memo (one per connection; tests make their own).
    public init() {}

    /// The object remembered, if any. Not generic on purpose: a generic accessor called from
    /// another module looks its type's metadata up at run time on every request; callers tell
    /// the class by `ObjectIdentifier(type(of:))` and `unsafeDowncast`.
    public func remembered() -> (any AnyObject & Sendable)? {
        stored.withLock { $0 }
    }

    /// Remembers `value` instead of what was remembered (nil: forgets it).
    public func remember(_ value: (any AnyObject & Sendable)?) {
        stored.withLock { $0 = value }
    }
}
