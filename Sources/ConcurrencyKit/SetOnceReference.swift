import Synchronization

/// An object set at most once and read by any thread without a lock, held inline in its owner:
/// what Synchronization's `AtomicLazyReference` does, without its generic code. That type's
/// `load()` is not inlined into callers and runs unspecialized (about 775 instructions a call,
/// several per durable request); this one is an atomic load.
///
/// Noncopyable, so that an owner keeps it among its own fields: reaching the object costs no
/// other object on the way (a store's durable request reads one through its backend). Where
/// slots must live in an array, ``SetOnceReference`` holds one.
///
/// Holds `Sendable` objects only (``storeIfNil(_:)`` takes nothing else); ``load()`` gives the
/// object back as `AnyObject`, and callers cast it to the class they stored
/// (`unsafeDowncast`, since each slot only ever holds one class).
package struct SetOnceSlot: ~Copyable, Sendable {
    /// The stored object's address, retained once; 0 before.
    private let address = Atomic<UInt>(0)

    /// An empty slot.
    package init() {}

    deinit {
        if let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) {
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
    }

    /// The object stored, or nil before one was.
    package func load() -> AnyObject? {
        guard let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Stores `object` unless an object was stored before; returns the object held after the
    /// call (`object`, or the earlier one).
    @discardableResult
    package func storeIfNil(_ object: some AnyObject & Sendable) -> AnyObject {
        let retained = Unmanaged<AnyObject>.passRetained(object)
        let (stored, earlier) = address.compareExchange(
            expected: 0,
            desired: UInt(bitPattern: retained.toOpaque()),
            ordering: .acquiringAndReleasing
        )
        if stored {
            return object
        }
        retained.release()
        // Cannot be 0: the exchange failed because an address was there.
        return Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: earlier)!).takeUnretainedValue()
    }
}

/// A ``SetOnceSlot`` as an object, for slots kept in arrays or shared.
package final class SetOnceReference: Sendable {
    private let slot = SetOnceSlot()

    /// An empty reference.
    package init() {}

    /// The object stored, or nil before one was.
    package func load() -> AnyObject? {
        slot.load()
    }

    /// Stores `object` unless an object was stored before; returns the object held after the
    /// call (`object`, or the earlier one).
    @discardableResult
    package func storeIfNil(_ object: some AnyObject & Sendable) -> AnyObject {
        slot.storeIfNil(object)
    }
}
