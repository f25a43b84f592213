/// A type that can be made with `init()`, so ``InitializableViewModelFactory`` can create it.
public protocol Initializable {
    /// Creates an instance with its default values.
    init()
}

/// Makes any ``Initializable`` view model with `init()`; ignores the key.
public struct InitializableViewModelFactory: ViewModelFactory {
    /// Creates the factory.
    public init() {}

    /// True for every ``Initializable`` type.
    public func creates<VM>(type: VM.Type) -> Bool {
        type is any Initializable.Type
    }

    /// A new `VM()` if `VM` is ``Initializable``.
    public func create<VM>(key: String?) -> VM? {
        guard let initializable = VM.self as? any Initializable.Type else { return nil }
        return initializable.init() as? VM
    }
}
