public import Journal

/// A ``Journal/LogGroup`` with the store it is appended to: one append of the shared log may
/// carry the groups of several stores, each checked against its own store's head.
public struct StoreLogGroup: Sendable, Equatable {
    /// The store the group's actions go to.
    public var store: StoreID
    /// The group.
    public var group: LogGroup
    /// The incarnation of `store` the group is meant for (``Journal/StoreDescription/incarnation``:
    /// the one its replica follows and serves); a head row of another one (the store deleted and
    /// created again meanwhile) refuses the group, as a missing store does
    /// (``Journal/LogGroupOutcome/storeNotFound``). Nil: whichever incarnation exists.
    public var incarnation: String?

    /// Creates a group of `store` (of its incarnation `incarnation`; nil: any).
    public init(_ group: LogGroup, to store: StoreID, incarnation: String? = nil) {
        self.store = store
        self.group = group
        self.incarnation = incarnation
    }
}

/// An idempotency key with the store it belongs to: each store has its own keys.
public struct StoreKey: Sendable, Hashable {
    /// The store.
    public var store: StoreID
    /// The key, as the client sent it.
    public var key: String

    /// Creates a key of `store`.
    public init(store: StoreID, key: String) {
        self.store = store
        self.key = key
    }
}
