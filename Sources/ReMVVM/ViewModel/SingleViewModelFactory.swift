/// Makes view models of one type from a closure that receives the key and may return nil.
///
/// ```swift
/// let factory = SingleViewModelFactory { key in key == "favourites" ? BookListViewModel(favourites) : nil }
/// ```
public struct SingleViewModelFactory<Product>: ViewModelFactory {
    private let make: @Sendable (String?) -> Product?

    /// Creates a keyed factory: `make` gets the key and returns nil when it makes nothing for it.
    public init(_ make: @escaping @Sendable (_ key: String?) -> Product?) {
        self.make = make
    }

    /// Creates a factory that ignores the key.
    public init(_ make: @escaping @Sendable () -> Product?) {
        self.make = { _ in make() }
    }

    /// True for `Product` only.
    public func creates<VM>(type: VM.Type) -> Bool {
        type == Product.self
    }

    /// The closure's result when `VM` is `Product`; nil otherwise.
    public func create<VM>(key: String?) -> VM? {
        guard creates(type: VM.self) else { return nil }
        return make(key) as? VM
    }
}
