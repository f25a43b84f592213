/// Names one dependency in ``Services`` and says what it is when nobody set it.
///
/// The default is the production value, so `Services()` is what a server runs with and a test
/// replaces only what it fakes:
///
/// ```swift
/// enum DirectoryKey: ServiceKey {
///     static var defaultValue: any Directory { LDAPDirectory() }
/// }
///
/// extension Services {
///     var directory: any Directory {
///         get { self[DirectoryKey.self] }
///         set { self[DirectoryKey.self] = newValue }
///     }
/// }
/// ```
public protocol ServiceKey {
    /// The type of the dependency.
    associatedtype Value: Sendable
    /// The dependency used when ``Services`` holds none for this key: the production one.
    static var defaultValue: Value { get }
}

/// The dependencies of middleware and view-model commands — a clock, a directory, an HTTP
/// client — handed to them at store construction, so a test can fake them (RxMVVM's
/// `ServiceProvider`, as typed keys).
///
/// A value type: build it, set what differs from production, give it to the ``Store`` (which keeps
/// it as ``Store/services``) and to the middleware that need it.
///
/// ```swift
/// var services = Services()
/// services.clock = FixedClock(Date(timeIntervalSince1970: 1_800_000_000))
/// let store = try Store(state: AppState(), reducer: AppReducer.self,
///                       middleware: [LoginMiddleware(clock: services.clock)], services: services)
/// ```
public struct Services: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// Services with every key at its default: the production dependencies.
    public init() {}

    /// The dependency stored for `key`, or its ``ServiceKey/defaultValue``.
    public subscript<Key: ServiceKey>(key: Key.Type) -> Key.Value {
        get {
            // Set only through this subscript, so a stored value always has the key's type.
            values[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue
        }
        set {
            values[ObjectIdentifier(key)] = newValue
        }
    }

    /// A copy with `value` stored for `key`: `Services().setting(ClockKey.self, to: fixed)`.
    public func setting<Key: ServiceKey>(_ key: Key.Type, to value: Key.Value) -> Services {
        var copy = self
        copy[key] = value
        return copy
    }
}
