#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What time it is: the clock that middleware and commands read through ``Services/clock``, so
/// tests can fix it.
///
/// Time read by middleware must go into the action it passes on (never only into a side effect
/// or the reducer), so that the journal holds it and a replay through the reducers gives the
/// same state (`docs/store-semantics.md`, rule 20).
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's wall clock: the production ``WallClock``.
public struct SystemClock: WallClock {
    /// Creates the clock.
    public init() {}

    /// `Date()`.
    public func now() -> Date {
        Date()
    }
}

/// A clock that always says the same time: for tests.
public struct FixedClock: WallClock {
    /// The time it says.
    public let date: Date

    /// A clock stopped at `date`.
    public init(_ date: Date) {
        self.date = date
    }

    /// ``date``.
    public func now() -> Date {
        date
    }
}

/// The key of ``Services/clock``; its default is the ``SystemClock``.
public enum WallClockKey: ServiceKey {
    /// The ``SystemClock``.
    public static var defaultValue: any WallClock { SystemClock() }
}

extension Services {
    /// The wall clock; by default the ``SystemClock``.
    public var clock: any WallClock {
        get { self[WallClockKey.self] }
        set { self[WallClockKey.self] = newValue }
    }
}
