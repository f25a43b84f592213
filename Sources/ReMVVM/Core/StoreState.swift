/// The root state of a ``Store``: an immutable value that also provides the factory for its view models.
public protocol StoreState: Sendable {
    /// The factory that builds view models from this state. Defaults to an empty ``CompositeViewModelFactory``,
    /// which creates every ``Initializable`` view model.
    var factory: any ViewModelFactory { get }
}

extension StoreState {
    /// An empty ``CompositeViewModelFactory``: it creates ``Initializable`` view models only.
    public var factory: any ViewModelFactory { CompositeViewModelFactory() }
}
