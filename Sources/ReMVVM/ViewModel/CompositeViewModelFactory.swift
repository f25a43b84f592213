import ConcurrencyKit

/// A factory made of other factories: the last one added is asked first, and a nil result falls
/// through to the next. It always ends with an ``InitializableViewModelFactory``.
///
/// ```swift
/// let factory = CompositeViewModelFactory()
/// factory.add { CounterViewModel(counter: state.counter) }
/// factory.add { key -> BookListViewModel? in key == "popular" ? BookListViewModel(popular) : nil }
/// ```
public final class CompositeViewModelFactory: ViewModelFactory {
    private let factories: Lock<[any ViewModelFactory]>

    /// Creates a factory that makes ``Initializable`` view models only; add more with `add`.
    public init() {
        factories = Lock([InitializableViewModelFactory()])
    }

    /// Creates a factory from `factories`; the last of them is asked first.
    public convenience init(with factories: [any ViewModelFactory]) {
        self.init()
        for factory in factories {
            add(factory: factory)
        }
    }

    /// Adds `factory`; it is asked before every factory added earlier.
    public func add(factory: any ViewModelFactory) {
        factories.withLock { $0.insert(factory, at: 0) }
    }

    /// Adds a factory of `VM` from a closure that ignores the key and may return nil.
    public func add<VM>(factory: @escaping @Sendable () -> VM?) {
        add(factory: SingleViewModelFactory<VM>(factory))
    }

    /// Adds a keyed factory of `VM`: the closure gets the key and may return nil.
    public func add<VM>(factory: @escaping @Sendable (_ key: String?) -> VM?) {
        add(factory: SingleViewModelFactory<VM>(factory))
    }

    /// True when any of the factories makes `type`.
    public func creates<VM>(type: VM.Type) -> Bool {
        factories.withLock { $0 }.contains { $0.creates(type: type) }
    }

    /// The first non-nil view model, asking the last-added factory first.
    public func create<VM>(key: String?) -> VM? {
        for factory in factories.withLock({ $0 }) {
            if let viewModel: VM = factory.create(key: key) {
                return viewModel
            }
        }
        return nil
    }
}
