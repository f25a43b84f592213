import ExampleApp
import ReMVVM
import Testing

/// Rules 14, 15 and 17 of docs/store-semantics.md: adding, removing and typing observers.
@Suite struct ObserverTests {
    @Test func rule14_addingAnObserverCallsDidReduceWithTheCurrentStateAtOnce() throws {
        let recorder = Recorder()
        let store = try Store.example(state: AppState(counter: 4))
        let observer = CounterLogObserver(name: "o", recorder: recorder)

        store.add(observer: observer)

        #expect(recorder.log == ["o did 4 old nil"])
    }

    @Test func rule14_addingTheSameInstanceTwiceNotifiesItOnce() throws {
        let recorded = try RecordedStore(observers: ["o"])
        recorded.store.add(observer: recorded.observers[0])

        recorded.store.dispatch(action: Increase())

        #expect(recorded.log == ["o will 0", "o did 1 old 0"], "the second add notifies nothing")
        #expect(recorded.store.observerCount == 1)
    }

    @Test func rule14_removedObserverIsNeverCalled() throws {
        let recorded = try RecordedStore(observers: ["o"])
        recorded.store.remove(observer: recorded.observers[0])

        recorded.store.dispatch(action: Increase())

        #expect(recorded.log.isEmpty)
        #expect(recorded.store.observerCount == 0)
    }

    @Test func rule14_deallocatedObserverIsNeverCalled() throws {
        let recorder = Recorder()
        let store = try Store.example()
        var observer: CounterLogObserver? = CounterLogObserver(name: "o", recorder: recorder)
        weak let weakObserver = observer
        if let observer { store.add(observer: observer) }
        observer = nil
        recorder.clear()

        store.dispatch(action: Increase())

        #expect(weakObserver == nil, "the store holds observers weakly")
        #expect(recorder.log.isEmpty)
        #expect(store.observerCount == 0)
    }

    @Test func rule15_observerOfASubstateReceivesMappedNewAndOldStates() throws {
        let store = try Store.example()
        let counter = SubstateObserver<Int>()
        let user = SubstateObserver<User?>()
        store.add(observer: counter)
        store.add(observer: user)

        store.dispatch(action: Increase())
        store.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))

        #expect(counter.received.map(\.state) == [0, 1, 1])
        #expect(counter.received.map(\.oldState) == [nil, 0, 1])
        #expect(user.received.map(\.state) == [nil, nil, User(firstName: "Ada", lastName: "Lovelace")])
    }

    @Test func rule15_observerOfATypeThatCannotBeMappedIsNeverCalled() throws {
        let store = try Store.example()
        let observer = SubstateObserver<String>()
        store.add(observer: observer)

        store.dispatch(action: Increase())

        #expect(observer.received.isEmpty)
    }

    @Test func rule15_observersOfAnyAndStoreStateReceiveTheRootState() throws {
        final class AnyObserver: StateObserver {
            var counters: [Int] = []
            func didReduce(state: Any, oldState: Any?) {
                if let state = state as? AppState { counters.append(state.counter) }
            }
        }
        final class RootObserver: StateObserver {
            var counters: [Int] = []
            func didReduce(state: any StoreState, oldState: (any StoreState)?) {
                if let state = state as? AppState { counters.append(state.counter) }
            }
        }
        let store = try Store.example()
        let anyObserver = AnyObserver()
        let rootObserver = RootObserver()
        store.add(observer: anyObserver)
        store.add(observer: rootObserver)

        store.dispatch(action: Increase())

        #expect(anyObserver.counters == [0, 1])
        #expect(rootObserver.counters == [0, 1])
    }

    @Test func rule17_insideDidReduceTheStoreAlreadyHoldsTheNewState() throws {
        final class ReadsStore: StateObserver {
            let store: Store<AppState>
            var seen: [String] = []
            init(store: Store<AppState>) { self.store = store }
            func didReduce(state: AppState, oldState: AppState?) {
                seen.append("\(state.counter)=\(store.state.counter)")
            }
        }
        let store = try Store.example()
        let observer = ReadsStore(store: store)
        store.add(observer: observer)

        store.dispatch(action: Increase())
        store.dispatch(action: Increase())

        #expect(observer.seen == ["0=0", "1=1", "2=2"])
    }
}
