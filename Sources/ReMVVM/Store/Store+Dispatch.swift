extension Store {
    /// Dispatches `action` from the first middleware.
    ///
    /// When the store is idle, or this is called from inside the store's own processing (middleware,
    /// observer, completion), the action is fully processed when this returns. When another thread is
    /// processing, the action is queued and that thread processes it, in order, before it goes idle;
    /// this call then returns at once, so it can never deadlock. Use ``dispatchAndWait(_:)`` to wait.
    public func dispatch(action: any StoreAction) {
        let context = DispatchContext()
        processor.run { self.process(action, from: 0, context: context, completions: nil, terminal: .reduce) }
    }

    /// Dispatches `actions` one after another with no other thread's action in between, waits until
    /// they are processed, and reports what became of them.
    ///
    /// Stops at the first action a middleware rejects. Do not call this from a thread that middleware
    /// or observers of this store wait on (it would wait for them while they wait for it).
    public func dispatchAndWait(_ actions: [any StoreAction]) -> DispatchOutcome {
        dispatchAndWait(actions, if: { _ in true })
    }

    /// As ``dispatchAndWait(_:)``, but only when `condition` holds for the store's version at that
    /// moment (checked in the same exclusive step as the dispatch: no other action comes between);
    /// otherwise nothing is dispatched and the outcome is
    /// ``DispatchOutcome/preconditionFailed(currentVersion:)``. For `If-Match`.
    public func dispatchAndWait(
        _ actions: [any StoreAction],
        if condition: @escaping @Sendable (UInt64) -> Bool
    ) -> DispatchOutcome {
        // Inside ``exclusively(_:)`` (the server's dispatch of a request): run at once, with no
        // closure to allocate for ``SerialProcessor/runAndWait(_:)`` and no second admission.
        if processor.isProcessingOnCurrentThread() {
            return dispatchExclusively(actions, if: condition)
        }
        return processor.runAndWait { self.dispatchExclusively(actions, if: condition) }
    }

    /// ``dispatchAndWait(_:if:)``'s work, run with the store to itself.
    private func dispatchExclusively(
        _ actions: [any StoreAction],
        if condition: @Sendable (UInt64) -> Bool
    ) -> DispatchOutcome {
        let versionBefore = version
        guard condition(versionBefore) else {
            return .preconditionFailed(currentVersion: versionBefore)
        }
        var everyActionLeftUnchanged = true
        for (index, action) in actions.enumerated() {
            let context = DispatchContext()
            defer { everyActionLeftUnchanged = everyActionLeftUnchanged && context.leftUnchanged }
            process(action, from: 0, context: context, completions: nil, terminal: .reduce)
            if let reason = context.refusal {
                return .refused(reason: reason, index: index)
            }
            if let reason = context.rejection {
                return .rejected(reason: reason, index: index)
            }
        }
        let versionAfter = version
        if versionAfter > versionBefore {
            return .reduced(version: versionAfter)
        }
        return everyActionLeftUnchanged && !actions.isEmpty ? .unchanged(version: versionAfter) : .accepted
    }

    /// Runs `body` with the store to itself: no other thread's action is processed until it
    /// returns, and a ``dispatchAndWait(_:if:)`` inside it runs at once, on this thread. For work
    /// that must bracket a dispatch (the journal groups one request's records with the answer
    /// kept for its `Idempotency-Key`). The same caution as ``dispatchAndWait(_:)`` applies.
    public func exclusively<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
        processor.runAndWait(body)
    }

    /// Dispatches one action and waits; see ``dispatchAndWait(_:)``.
    public func dispatchAndWait(action: any StoreAction) -> DispatchOutcome {
        dispatchAndWait([action])
    }

    /// Runs middleware `index`, or past the last one the terminal step: the reducer, or a
    /// proposal's collector (``propose(_:late:)``). Called inside processor work only.
    func process(
        _ action: any StoreAction,
        from index: Int,
        context: DispatchContext,
        completions: CompletionChain<State>?,
        terminal: Terminal<State>
    ) {
        // A middleware that does not handle the action is passed over: the same as its calling
        // `next()` at once, without the interceptor and the nested step. Passing over reads the
        // filters alone (one list for all stores of a domain: `MiddlewareFilterLists`); a
        // middleware itself is read only when its filter is `.asked` — and then copied to be
        // asked (the call opens the existential into a copy, even through a buffer's element),
        // retaining what it holds: over many stores, each store's own middleware, cold lines.
        let index = middleware.filters.withUnsafeBufferPointer { filters in
            var handling = index
            while handling < filters.count,
                !filters[handling].admits(action, handledBy: { middleware.items[handling].handles($0) }) {
                handling += 1
            }
            return handling
        }
        guard index < middleware.filters.count else {
            var receipt: ReduceCheckReceipt?
            switch verdict(on: action) {
            case .admit:
                break
            case .admitHandingOn(let handedOn):
                receipt = handedOn
            case .refuse(let reason):
                context.refuse(reason)
                return
            }
            switch terminal {
            case .reduce:
                reduceAndNotify(action, receipt: receipt, completions: completions)
            case .propose(let collector):
                let speculative = collector.collect(action, receipt: receipt)
                completions?.run(with: speculative)
            }
            return
        }
        let interceptor = Interceptor<any StoreAction, State>(
            mappings: mappings,
            next: { replacement, completion in
                let chain = CompletionChain.adding(completion, to: completions)
                self.processor.run {
                    self.process(replacement ?? action, from: index + 1, context: context, completions: chain, terminal: terminal)
                }
            },
            reject: { context.reject($0) },
            leaveUnchanged: { context.leaveUnchanged() }
        )
        switch terminal {
        case .reduce:
            middleware.items[index].onNext(for: state, action: action, interceptor: interceptor, dispatcher: self)
        case .propose(let collector):
            middleware.items[index].onNext(
                for: collector.state, action: action, interceptor: interceptor,
                dispatcher: ProposingDispatcher(store: self, collector: collector)
            )
        }
    }

    /// willReduce → reducer → publication → didReduce → completions, innermost first.
    private func reduceAndNotify(_ action: any StoreAction, receipt: ReduceCheckReceipt?, completions: CompletionChain<State>?) {
        // Most stores served over HTTP have no observer: asked first (an atomic), so that path
        // never touches the observers' generic types (a runtime lookup each, at every reduce).
        if isObserved {
            let stateBefore = state
            for entry in observers.current {
                entry.willReduce(stateBefore)
            }
        }
        // Reduce the state current now: a willReduce observer may have dispatched (nested) meanwhile.
        let oldState = state
        let newState = reduce(oldState, with: action)
        let (publication, publish) = commit(newState, action: action, receipt: receipt)
        publish(publication)
        if isObserved {
            notifyDidReduce(newState, oldState: oldState)
        }
        completions?.run(with: newState)
    }

    private func notifyDidReduce(_ newState: State, oldState: State) {
        for entry in observers.current {
            entry.didReduce(newState, oldState: oldState)
        }
    }
}
