import ConcurrencyKit
import ExampleApp
import ReMVVM
import Testing

/// A typed middleware sees the actions of its `Action` type, whether the store tells them by
/// their exact type (a struct or enum action type) or asks `handles(_:)` (a class, whose
/// subclasses count, or a protocol).
@Suite struct MiddlewareActionFilterTests {
    class BaseAction: StoreAction, @unchecked Sendable {}
    final class DerivedAction: BaseAction, @unchecked Sendable {}
    protocol TaggedAction: StoreAction {}
    struct FirstTagged: TaggedAction {}

    /// Counts the actions of `Action` it is called for, and passes them on.
    struct Counting<Action>: Middleware {
        typealias State = AppState
        let seen: Lock<[String]>

        func onNext(for state: AppState, action: Action, interceptor: Interceptor<Action, AppState>, dispatcher: any Dispatcher) {
            seen.withLock { $0.append("\(type(of: action as Any))") }
            interceptor.next()
        }
    }

    @Test func eachKindOfActionTypeGetsItsFilter() {
        let seen = Lock<[String]>([])
        #expect(Counting<Increase>(seen: seen).actionFilter == .exactType(ObjectIdentifier(Increase.self)))
        #expect(Counting<any StoreAction>(seen: seen).actionFilter == .everyAction)
        #expect(Counting<BaseAction>(seen: seen).actionFilter == .asked)
        #expect(Counting<any TaggedAction>(seen: seen).actionFilter == .asked)
    }

    @Test func everyKindSeesExactlyItsActions() throws {
        let exact = Lock<[String]>([])
        let base = Lock<[String]>([])
        let tagged = Lock<[String]>([])
        let every = Lock<[String]>([])
        let store = try Store(state: AppState(), reducer: AppReducer.self, middleware: [
            Counting<Increase>(seen: exact),
            Counting<BaseAction>(seen: base),
            Counting<any TaggedAction>(seen: tagged),
            Counting<any StoreAction>(seen: every),
        ])
        store.dispatch(action: Increase())
        store.dispatch(action: Decrease())
        store.dispatch(action: DerivedAction())
        store.dispatch(action: BaseAction())
        store.dispatch(action: FirstTagged())
        #expect(exact.withLock { $0 } == ["Increase"])
        #expect(base.withLock { $0 } == ["DerivedAction", "BaseAction"], "a subclass is one of its class's actions")
        #expect(tagged.withLock { $0 } == ["FirstTagged"])
        #expect(every.withLock { $0 }.count == 5)
        #expect(store.state.counter == 0)
    }
}
