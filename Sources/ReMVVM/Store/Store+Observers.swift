extension Store {
    /// Adds `observer` (held weakly) and calls its `didReduce(current, nil)` at once.
    ///
    /// An observer of a substate needs a ``StateMapper`` for that type (or receives the root state if it
    /// observes `Any` / `any StoreState`); an observer of a type the store cannot produce is never
    /// called. Adding the same instance twice has no further effect. When another thread is processing,
    /// the first call happens on that thread as soon as its current work ends, before any later reduce.
    public func add<Observer: StateObserver>(observer: Observer) {
        guard let entry = observers.register(observer, mappings: mappings, sample: state, observed: setObserved) else { return }
        processor.run { entry.activate(with: self.state) }
    }

    /// Removes `observer`: no call to it starts after this returns.
    public func remove<Observer: StateObserver>(observer: Observer) {
        observers.unregister(observer, observed: setObserved)
    }

    /// How many live observers the store has.
    public var observerCount: Int {
        observers.count
    }
}
