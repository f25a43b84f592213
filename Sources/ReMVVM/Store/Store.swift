import ConcurrencyKit
import Synchronization

/// Holds the application state; the state changes only by dispatching actions through middleware to
/// the reducer. Safe to use from any number of threads at once.
///
/// - Dispatches from many threads are serialized: each action is processed exactly once, in order.
/// - A dispatch made from inside middleware, an observer or a completion is processed at once, nested,
///   then the outer dispatch resumes. It never deadlocks.
/// - Every reduce increments ``version`` by one and is published, in version order, to the handlers
///   added with ``addPublicationHandler(_:)``, before any observer is called.
public final class Store<State: StoreState>: Dispatcher, Sendable {
    private struct Current {
        var snapshot: StoreSnapshot<State>
        /// Every handler added, in the order added, as one closure (none: does nothing): an array
        /// or an optional of closures over the state type would be a generic type to look up at
        /// every reduce.
        var publish: @Sendable (StatePublication<State>) -> Void = { _ in }
        var hasPublicationHandlers = false
        /// Every reduce check added, in order, as one closure (nil: none): the check that one
        /// store shares with others is then called as it is, with no array of the store's own
        /// to read on the way.
        var reduceCheck: (@Sendable (any StoreAction) -> ReduceCheckVerdict)?
    }

    /// Middleware are only called from inside the processor's exclusive work items.
    struct MiddlewareStack: @unchecked Sendable {
        let items: [any AnyMiddleware]
        /// Each item's ``AnyMiddleware/actionFilter``, read once; one list for all stores with
        /// the same filters (``MiddlewareFilterLists/shared``).
        let filters: [MiddlewareActionFilter]

        init(items: [any AnyMiddleware]) {
            self.items = items
            filters = MiddlewareFilterLists.shared.list(items.map(\.actionFilter))
        }
    }

    // The fields every dispatch reads come first, in the object's first two cache lines: over
    // many stores a store is touched once in a while, and each line it touches is a miss.
    let processor = SerialProcessor()
    private let current: Lock<Current>
    /// The current snapshot's version, also outside the lock: read several times per dispatch.
    private let currentVersion = Atomic<UInt64>(0)
    private let hasReduceChecks = Atomic<Bool>(false)
    /// Whether ``observers`` holds any, set under its lock (see ``ObserverRegistry``).
    private let observed = Atomic<Bool>(false)
    /// The root reducer's closure: one object for every store of its reducer type
    /// (``SharedReducers``), not a context of each store's own.
    private let reducer: @Sendable (State, any StoreAction) -> State
    let middleware: MiddlewareStack
    /// The metatype of the object every reduce makes (its publication and the new snapshot),
    /// looked up once here: allocating through it passes that metadata, where
    /// `StatePublication<State>(…)` in code not specialized for the domain's state looks it up
    /// at every call (about 330 instructions).
    private let publicationType = StatePublication<State>.self
    let observers = ObserverRegistry<State>()

    /// Whether any observer is registered (no lock, no generic type: asked before every reduce).
    var isObserved: Bool {
        observed.load(ordering: .acquiring)
    }

    /// Tells ``isObserved`` whether observers are registered; called under ``observers``' lock.
    func setObserved(_ value: Bool) {
        observed.store(value, ordering: .releasing)
    }
    let mappings: StateMappings<State>

    /// The dependencies given at construction: those of the middleware, and those the service hands
    /// to view-model commands.
    public let services: Services

    /// Builds a store.
    /// - Parameters:
    ///   - state: the initial state (version 0).
    ///   - reducer: the root reducer; it is called for every action that passes all middleware.
    ///   - middleware: middleware in the order they run.
    ///   - stateMappers: at most one mapper per substate type, for typed middleware and observers.
    ///   - services: the dependencies of the middleware and of view-model commands (a clock, …);
    ///     the default is the production ones. Kept as ``services``.
    /// - Throws: ``StoreConfigurationError`` for two mappers of one type, or a typed middleware whose
    ///   state type no mapper produces.
    public init<R: Reducer>(
        state: State,
        reducer: R.Type,
        middleware: [any AnyMiddleware] = [],
        stateMappers: [StateMapper<State>] = [],
        services: Services = Services()
    ) throws where R.State == State, R: SendableMetatype {
        var seen = Set<ObjectIdentifier>()
        for mapper in stateMappers where !seen.insert(mapper.targetType).inserted {
            throw StoreConfigurationError.duplicateStateMapper(typeName: mapper.targetTypeName)
        }
        let mappings = StateMappings(mappers: stateMappers)
        for item in middleware {
            guard let (canMap, stateTypeName): ((State, StateMappings<State>) -> Bool, String) =
                middlewareStateCheck(item)
            else { continue }
            if !canMap(state, mappings) {
                throw StoreConfigurationError.missingStateMapper(
                    middleware: String(reflecting: type(of: item)),
                    stateType: stateTypeName
                )
            }
        }
        self.mappings = mappings
        self.middleware = MiddlewareStack(items: middleware)
        self.services = services
        self.reducer = SharedReducers.reduce(of: R.self)
        self.current = Lock(Current(snapshot: StoreSnapshot(version: 0, state: state)))
    }

    /// The current state. Inside `didReduce` it already holds the new state.
    public var state: State {
        current.withLock { $0.snapshot.state }
    }

    /// The number of reduces so far; the identity of the current state.
    public var version: UInt64 {
        currentVersion.load(ordering: .acquiring)
    }

    /// The current state and its version, read together.
    public var snapshot: StoreSnapshot<State> {
        // Out of the lock as a plain object and back through `Unmanaged` (a reinterpretation):
        // unspecialized (a store served for a domain's state), returning the snapshot's own type
        // from the lock, or casting to it, looked that generic type up at run time on every read
        // (about 330 instructions of every `GET /state`).
        let object = current.withLock { current -> AnyObject in current.snapshot }
        return Unmanaged<StoreSnapshot<State>>.fromOpaque(Unmanaged.passUnretained(object).toOpaque()).takeUnretainedValue()
    }

    /// Receives every reduce, in version order, with no gap and no repeat, starting after the returned
    /// snapshot. Called on the processing thread right after the reduce and before any observer, so it
    /// must be quick and must not dispatch; hand the publication to another thread for real work.
    /// - Returns: the snapshot current when the handler was added.
    @discardableResult
    public func addPublicationHandler(
        _ handler: @escaping @Sendable (StatePublication<State>) -> Void
    ) -> StoreSnapshot<State> {
        current.withLock { current in
            if current.hasPublicationHandlers {
                let earlier = current.publish
                current.publish = { publication in
                    earlier(publication)
                    handler(publication)
                }
            } else {
                current.publish = handler
                current.hasPublicationHandlers = true
            }
            return current.snapshot
        }
    }

    /// Adds a check that runs on the processing thread just before every reduce; a non-nil reason
    /// refuses the action: it is not reduced, observers are not called, and ``dispatchAndWait(_:)``
    /// reports ``DispatchOutcome/refused(reason:index:)``. For setup faults the server detects
    /// (an action it could not journal), not for validating client input (use middleware).
    public func addReduceCheck(_ check: @escaping @Sendable (any StoreAction) -> String?) {
        addReduceCheck(handingOn: { action in check(action).map(ReduceCheckVerdict.refuse) ?? .admit })
    }

    /// Adds a check as ``addReduceCheck(_:)`` does, whose verdict may also hand on what it made of
    /// the action (``ReduceCheckVerdict/admitHandingOn(_:)``) to the reduce's publication
    /// (``StatePublication/receipt``): a check that encodes the action to know whether it can be
    /// journaled hands the encoding on to the journal's handler. Checks run in the order added;
    /// the first refusal refuses, and the receipt of the last check that handed one on is kept.
    /// In a ``propose(_:late:)`` the receipts are in ``Proposal/receipts``; an action passed on
    /// after the proposal ended (its `late` handler) has none.
    public func addReduceCheck(handingOn check: @escaping @Sendable (any StoreAction) -> ReduceCheckVerdict) {
        current.withLock { current in
            if let earlier = current.reduceCheck {
                current.reduceCheck = { action in earlier(action).followed(by: check(action)) }
            } else {
                current.reduceCheck = check
            }
        }
        hasReduceChecks.store(true, ordering: .releasing)
    }

    /// What the reduce checks say of `action`.
    func verdict(on action: any StoreAction) -> ReduceCheckVerdict {
        // Most stores have none: no lock on the way to every reduce then.
        guard hasReduceChecks.load(ordering: .acquiring), let check = current.withLock({ $0.reduceCheck }) else { return .admit }
        return check(action)
    }

    /// Stores the reduced state and bumps the version; returns the publication and what publishes it
    /// (every handler, in order).
    func commit(
        _ state: State,
        action: any StoreAction,
        receipt: ReduceCheckReceipt?
    ) -> (StatePublication<State>, @Sendable (StatePublication<State>) -> Void) {
        let publicationType = publicationType
        var publication: StatePublication<State>?
        var publish: @Sendable (StatePublication<State>) -> Void = { _ in }
        // Nothing returned through the lock: a tuple of these as its generic result was a
        // runtime type lookup at every reduce.
        current.withLock { current in
            let version = current.snapshot.version + 1
            let made = publicationType.init(version: version, action: action, state: state, receipt: receipt)
            current.snapshot = made
            publication = made
            publish = current.publish
            currentVersion.store(version, ordering: .releasing)
        }
        // Cannot be nil: set by the closure above, which has run.
        return (publication!, publish)
    }

    /// Replaces state and version at once (restoring from a journal).
    func replaceSnapshot(_ snapshot: StoreSnapshot<State>) {
        current.withLock { current in
            current.snapshot = snapshot
            currentVersion.store(snapshot.version, ordering: .releasing)
        }
    }

    func reduce(_ state: State, with action: any StoreAction) -> State {
        reducer(state, action)
    }
}
