import ExampleApp
import ReMVVM
import Testing

/// Rules 11 and 12 of docs/store-semantics.md, and reducer composition.
@Suite struct ReducerTests {
    class Greeting: StoreAction, @unchecked Sendable {}
    final class LoudGreeting: Greeting, @unchecked Sendable {}

    enum GreetingCounter: Reducer {
        static func reduce(state: Int, with action: Greeting) -> Int { state + 1 }
    }

    @Test func rule11_reducerFiresOnlyForItsExactActionType() {
        #expect(GreetingCounter.reduce(state: 0, withAny: Greeting()) == 1)
        #expect(GreetingCounter.reduce(state: 0, withAny: LoudGreeting()) == 0, "a subclass is another type")
        #expect(GreetingCounter.reduce(state: 0, withAny: Increase()) == 0)
        #expect(IncreaseReducer.reduce(state: 5, withAny: Decrease()) == 5)
    }

    /// A value is told by the type the existential holds it as; an instance of a class by its
    /// own class, also when it is held as its superclass.
    @Test func rule11_aClassInstanceIsItsOwnClassWhateverItIsHeldAs() {
        enum LoudCounter: Reducer {
            static func reduce(state: Int, with action: LoudGreeting) -> Int { state + 10 }
        }
        let held: Greeting = LoudGreeting()
        #expect(LoudCounter.reduce(state: 0, withAny: held) == 10, "held as Greeting, it is a LoudGreeting")
        #expect(GreetingCounter.reduce(state: 0, withAny: held) == 0, "and not a Greeting")
        #expect(LoudCounter.reduce(state: 0, withAny: Greeting()) == 0)
        #expect(IncreaseReducer.reduce(state: 5, withAny: Greeting()) == 5, "a value reducer and a class action")
        #expect(IncreaseReducer.reduce(state: 5, withAny: Increase()) == 6)
    }

    /// The identity rule 11 compares: a value's own type, a class instance's own class whatever
    /// it is held as.
    @Test func anActionsTypeIdentifierIsItsOwnType() {
        let held: Greeting = LoudGreeting()
        #expect(actionTypeIdentifier(of: held) == ObjectIdentifier(LoudGreeting.self))
        #expect(actionTypeIdentifier(of: Greeting()) == ObjectIdentifier(Greeting.self))
        #expect(actionTypeIdentifier(of: Increase()) == ObjectIdentifier(Increase.self))
        let actions: [any StoreAction] = [Increase(), held, Decrease()]
        #expect(actions.map { actionTypeIdentifier(of: $0) } == actions.map { ObjectIdentifier(type(of: $0)) })
    }

    @Test func composedReducersRunFirstThenSecondEachForItsOwnAction() {
        enum Double: Reducer {
            static func reduce(state: Int, with action: Increase) -> Int { state * 2 }
        }
        let composed = IncreaseReducer.compose(with: Double.self)
        #expect(composed.reduce(state: 3, with: Increase()) == 8, "(3 + 1) * 2: first, then second")
        #expect(composed.reduce(state: 3, with: Decrease()) == 3)
        #expect(CounterReducer.reduce(state: 3, with: Decrease()) == 2)
    }

    /// A composition applies its reducers to one state in place: the same rules as each reducer
    /// on its own, for values and for class instances whatever they are held as.
    @Test func aCompositionFollowsRule11ForEveryKindOfAction() {
        enum LoudCounter: Reducer {
            static func reduce(state: Int, with action: LoudGreeting) -> Int { state + 10 }
        }
        enum AnyCounter: Reducer {
            static func reduce(state: Int, with action: any StoreAction) -> Int { state + 100 }
        }
        let composed = GreetingCounter.compose(with: LoudCounter.self).compose(with: IncreaseReducer.self)
        let held: Greeting = LoudGreeting()
        #expect(composed.reduce(state: 0, with: held) == 10, "held as Greeting, only the LoudGreeting reducer")
        #expect(composed.reduce(state: 0, with: Greeting()) == 1)
        #expect(composed.reduce(state: 0, with: LoudGreeting()) == 10, "a subclass is not its superclass")
        #expect(composed.reduce(state: 0, with: Increase()) == 1)
        #expect(composed.reduce(state: 0, with: Decrease()) == 0)
        let everything = IncreaseReducer.compose(with: AnyCounter.self)
        #expect(everything.reduce(state: 0, with: Increase()) == 101, "any StoreAction takes every action")
        #expect(everything.reduce(state: 0, with: held) == 100)
    }

    @Test func rule12_actionNoReducerHandlesLeavesStateUnchangedButObserversAreNotified() throws {
        struct Unhandled: StoreAction {}
        let recorded = try RecordedStore(state: AppState(counter: 7), observers: ["o"])

        recorded.store.dispatch(action: Unhandled())

        #expect(recorded.store.state == AppState(counter: 7))
        #expect(recorded.log == ["o will 7", "o did 7 old 7"])
    }
}
