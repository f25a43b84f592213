/// Builds view models, typically from a state (see ``StoreState/factory``).
public protocol ViewModelFactory: Sendable {
    /// Whether this factory can make view models of `type`.
    func creates<VM>(type: VM.Type) -> Bool
    /// A new view model of type `VM`, or nil when this factory does not make one (for this key, or in
    /// the current state).
    /// - Parameter key: an optional identifier that keyed factories use to choose what to make.
    func create<VM>(key: String?) -> VM?
}

extension ViewModelFactory {
    /// A new view model of type `VM` without a key.
    public func create<VM>() -> VM? {
        create(key: nil)
    }
}
