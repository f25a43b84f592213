/// The mappers of one store, and how they turn the root state into any requested type.
///
/// Resolution order, as in ReMVVM: the root type itself, then a registered mapper, then a plain cast
/// (so observers of `Any` or `any StoreState` receive the root state).
struct StateMappings<Root>: Sendable {
    let mappers: [StateMapper<Root>]

    /// An empty set: only the root type and plain casts resolve.
    static var none: StateMappings<Root> { StateMappings(mappers: []) }

    /// A function from the root state to `Target`, or nil when `Target` can never be produced.
    ///
    /// The resolution is done once, so that calling the returned function is cheap.
    func resolver<Target>(for target: Target.Type, sample: Root) -> (@Sendable (Root) -> Target?)? {
        if Target.self == Root.self {
            return { $0 as? Target }
        }
        if let mapper = mappers.first(where: { $0.produces(Target.self) }) {
            return { mapper.map($0) }
        }
        guard sample is Target else { return nil }
        return { $0 as? Target }
    }

    /// `root` seen as `Target`, or nil when it cannot be mapped.
    func map<Target>(_ root: Root, to target: Target.Type) -> Target? {
        resolver(for: target, sample: root)?(root)
    }

    /// Whether a value of `Target` can be produced from `sample`.
    func canMap<Target>(_ sample: Root, to target: Target.Type) -> Bool {
        resolver(for: target, sample: sample) != nil
    }
}
