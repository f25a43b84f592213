extension Store {
    /// A new view model of type `VM` made by the current state's factory, or nil if no factory makes it.
    ///
    /// A view model that is a ``StateObserver`` is added as an observer (weakly, so it lives as long as
    /// the caller keeps it) and receives the current (mapped) state at once.
    /// - Parameter type: the view model's type; inferred from the result when left out.
    /// - Parameter key: passed to keyed factories, which may make different view models per key.
    public func viewModel<VM>(of type: VM.Type = VM.self, key: String? = nil) -> VM? {
        guard let viewModel: VM = state.factory.create(key: key) else { return nil }
        if let observer = viewModel as? any StateObserver {
            add(observer: observer)
        }
        return viewModel
    }
}
