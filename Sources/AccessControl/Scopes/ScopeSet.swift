/// The scopes one credential grants: a small bit set, cheap to copy and to test on every request.
public struct ScopeSet: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bits: one per ``Scope``.
    public let rawValue: UInt8

    /// The set with exactly these bits (bits of no known scope are kept but grant nothing named).
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The set holding only `scope`.
    public init(_ scope: Scope) {
        switch scope {
        case .read: rawValue = 1 << 0
        case .dispatch: rawValue = 1 << 1
        case .manage: rawValue = 1 << 2
        }
    }

    /// The set holding each of `scopes`.
    public init(_ scopes: some Sequence<Scope>) {
        self = scopes.reduce(into: ScopeSet()) { $0.insert(ScopeSet($1)) }
    }

    /// Only ``Scope/read``.
    public static let read = ScopeSet(.read)
    /// Only ``Scope/dispatch``.
    public static let dispatch = ScopeSet(.dispatch)
    /// Only ``Scope/manage``.
    public static let manage = ScopeSet(.manage)
    /// Every scope there is.
    public static let all: ScopeSet = [.read, .dispatch, .manage]

    /// Whether the set grants `scope`.
    public func grants(_ scope: Scope) -> Bool {
        contains(ScopeSet(scope))
    }

    /// The scopes in the set, in declaration order.
    public var scopes: [Scope] {
        Scope.allCases.filter(grants)
    }

    /// The configuration form: names joined with `+`, e.g. `read+dispatch`; empty for no scope.
    public var description: String {
        scopes.map(\.name).joined(separator: "+")
    }
}
