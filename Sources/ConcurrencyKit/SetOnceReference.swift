import Synchronization

/// An object set at most once and read by any thread without a lock: what Synchronization's
/// `AtomicLazyReference` does, without its generic code. That type's `load()` is not inlined
/// into callers and runs unspecialized (about 775 instructions a call, several per durable
/// request); this one is an atomic load.
///
/// Holds `Sendable` objects only (``storeIfNil(_:)`` takes nothing else); ``load()`` gives the
/// object back as `AnyObject`, and callers cast it to the class they stored
/// (`unsafeDowncast`, since each reference only ever holds one class).
package final class SetOnceReference: Sendable {
    /// The stored object's address, retained once; 0 before.
    private let address = Atomic<UInt>(0)

    /// An empty reference.
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
