extension Store {
    /// Sets the state and version a journal restores (its newest snapshot) before the store serves.
    /// Call it before any dispatch; later versions continue from `version`.
    public func restore(state: State, version: UInt64) {
        processor.runAndWait { [self] in
            replaceSnapshot(StoreSnapshot(version: version, state: state))
        }
    }

    /// Applies one journaled action through the reducer only — no middleware, no observers
    /// (`docs/store-semantics.md`, rule 20) — and returns the new version. Publication handlers do
    /// see it, in order, like any reduce.
    @discardableResult
    public func replay(_ action: any StoreAction) -> UInt64 {
        processor.runAndWait { [self] in
            let (publication, publish) = commit(reduce(state, with: action), action: action, receipt: nil)
            publish(publication)
            return publication.version
        }
    }

    /// ``replay(_:)`` of every action of `actions`, in order, in one turn of the store's
    /// processing (a replica applies a page of its log at once: one hand-over of the store
    /// instead of one per action). Each reduce is published on its own, in version order, as
    /// ``replay(_:)`` publishes it. Returns the version after the last (the current one when
    /// `actions` is empty).
    @discardableResult
    public func replay(contentsOf actions: [any StoreAction]) -> UInt64 {
        processor.runAndWait { [self] in
            var version = self.version
            for action in actions {
                let (publication, publish) = commit(reduce(state, with: action), action: action, receipt: nil)
                publish(publication)
                version = publication.version
            }
            return version
        }
    }
}

extension Store {
    /// The state the root reducer makes of `state` and `action` — the reduce a dispatch or
    /// ``replay(_:)`` would do, and nothing else: no middleware, no observers, no publication,
    /// the store's own state and version untouched. Reducers are pure (`docs/store-semantics.md`,
    /// rule 20), so this may run on any thread, beside the store's own processing: for rebuilding
    /// past versions from a journal.
    public func reduced(_ state: State, with action: any StoreAction) -> State {
        reduce(state, with: action)
    }
}
