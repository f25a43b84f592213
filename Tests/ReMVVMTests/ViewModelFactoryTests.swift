import ExampleApp
import ReMVVM
import Testing

/// Rules 21 and 22 of docs/store-semantics.md: view-model factories and observer view models.
@Suite struct ViewModelFactoryTests {
    final class Badge {
        let text: String
        init(text: String) { self.text = text }
    }

    final class Blank: Initializable {
        init() {}
    }

    @Test func rule21_createReturnsANewInstanceEachCall() {
        let factory = CompositeViewModelFactory()
        factory.add { Badge(text: "x") }
        let first: Badge? = factory.create()
        let second: Badge? = factory.create()
        #expect(first != nil && second != nil)
        #expect(first !== second)
        let blank1: Blank? = factory.create()
        let blank2: Blank? = factory.create()
        #expect(blank1 != nil && blank1 !== blank2, "initializable view models are made with init()")
    }

    @Test func rule21_keyedFactoryGetsTheKey() {
        let factory = CompositeViewModelFactory()
        factory.add { (key: String?) in Badge(text: "key=\(key ?? "none")") }
        #expect((factory.create(key: "gold") as Badge?)?.text == "key=gold")
        #expect((factory.create(key: nil) as Badge?)?.text == "key=none")
    }

    @Test func rule21_nilResultFallsThroughToTheNextFactory() {
        let factory = CompositeViewModelFactory()
        factory.add { Badge(text: "fallback") }
        factory.add { (key: String?) in key == "special" ? Badge(text: "special") : nil }
        #expect((factory.create(key: "special") as Badge?)?.text == "special")
        #expect((factory.create(key: "other") as Badge?)?.text == "fallback")
    }

    @Test func rule21_theLastFactoryAddedWins() {
        let factory = CompositeViewModelFactory()
        factory.add { Badge(text: "first") }
        factory.add { Badge(text: "second") }
        #expect((factory.create() as Badge?)?.text == "second")
        #expect(factory.creates(type: Badge.self))
        #expect(!factory.creates(type: String.self))
        #expect(factory.create() as String? == nil)
    }

    @Test func exampleStateMakesCounterAndGreetingsViewModels() throws {
        let store = try Store.example(state: AppState(counter: 41))
        #expect(store.viewModel(of: CounterViewModel.self) == CounterViewModel(counter: 41))
        #expect(store.viewModel(of: CounterViewModel.self)?.counter == "41")
        #expect(store.viewModel(of: GreetingsViewModel.self) == nil, "nobody is logged in")

        store.dispatch(action: Login(firstName: "Ada", lastName: "Lovelace"))

        #expect(store.viewModel(of: GreetingsViewModel.self)?.greetings == "Hello Ada Lovelace <3")
    }

    @Test func rule22_viewModelThatIsAnObserverIsSubscribedAndGetsTheCurrentMappedStateAtOnce() throws {
        final class LiveCounter: StateObserver, Initializable {
            var values: [Int] = []
            init() {}
            func didReduce(state: Int, oldState: Int?) { values.append(state) }
        }
        let store = try Store.example(state: AppState(counter: 3))

        let viewModel = try #require(store.viewModel(of: LiveCounter.self))
        #expect(viewModel.values == [3])

        store.dispatch(action: Increase())
        #expect(viewModel.values == [3, 4])
        #expect(store.observerCount == 1)
    }
}
