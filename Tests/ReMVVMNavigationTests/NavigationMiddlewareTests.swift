import Foundation
import ReMVVM
import ReMVVMNavigation
import Testing

/// A state with a counter and a navigation, for rules 27–28 through a real store.
private struct App: StoreState, Codable, Equatable {
    var counter = 0
    var navigation: NavigationState

    var factory: any ViewModelFactory { CompositeViewModelFactory() }
}

private struct Increase: StoreAction {}

private enum AppReducer: Reducer {
    static func reduce(state: App, with action: any StoreAction) -> App {
        App(
            counter: state.counter + (action is Increase ? 1 : 0),
            navigation: NavigationReducer.reduce(state: state.navigation, with: action)
        )
    }
}

@Suite struct NavigationMiddlewareTests {
    private func store() throws -> Store<App> {
        try Store(
            state: App(navigation: NavigationReducerTests.twoTabs()),
            reducer: AppReducer.self,
            middleware: [NavigationMiddleware(at: \App.navigation, screens: ["counter", "greetings", "history", "login"])]
        )
    }

    /// The filter a store reads instead of asking the middleware admits exactly what it would
    /// answer: the six navigation actions, nothing else.
    @Test func itsFilterAdmitsWhatItHandles() {
        let middleware = NavigationMiddleware(at: \App.navigation, screens: ["counter"])
        let navigation: [any StoreAction] = [
            Push("counter"), Pop(), PopToRoot(), ShowModal("counter"), DismissModal(), SelectTab("counter"),
        ]
        for action in navigation + [Increase()] {
            #expect(middleware.actionFilter.admits(action, handledBy: { _ in false }) == middleware.handles(action))
        }
        #expect(navigation.allSatisfy { middleware.actionFilter.admits($0, handledBy: { _ in false }) })
        #expect(!middleware.actionFilter.admits(Increase(), handledBy: { _ in true }))
    }

    @Test func rule27_anUnknownScreenOrTabIsRejectedBeforeTheReducerAndChangesNothing() throws {
        let store = try store()
        let before = store.state
        #expect(store.dispatchAndWait(action: Push("nowhere")) == .rejected(
            reason: "no screen is named \"nowhere\"; the screens are counter, greetings, history, login", index: 0
        ))
        #expect(store.dispatchAndWait(action: ShowModal("nowhere")) != .reduced(version: 1))
        #expect(store.dispatchAndWait(action: SelectTab("settings")) == .rejected(
            reason: "no tab is named \"settings\"; the tabs are counter, account", index: 0
        ))
        #expect(store.state == before)
        #expect(store.version == 0)
    }

    @Test func rule28_anActionThatWouldChangeNothingMakesNoNewVersion() throws {
        let store = try store()
        #expect(store.dispatchAndWait(action: Pop()) == .unchanged(version: 0))
        #expect(store.dispatchAndWait(action: DismissModal()) == .unchanged(version: 0))
        #expect(store.dispatchAndWait(action: PopToRoot()) == .unchanged(version: 0))
        #expect(store.dispatchAndWait(action: SelectTab("counter")) == .unchanged(version: 0))
        #expect(store.version == 0)
        #expect(store.dispatchAndWait(action: Push("history")) == .reduced(version: 1))
        #expect(store.dispatchAndWait([Pop(), Pop()]) == .reduced(version: 2), "the first pop changes, the second does not")
        #expect(store.state.navigation.top == Screen("counter"))
        #expect(store.dispatchAndWait([Increase(), Pop()]) == .reduced(version: 3))
        #expect(store.dispatchAndWait([]) == .accepted, "an empty batch is not 'unchanged'")
    }

    @Test func otherActionsPassThrough() throws {
        let store = try store()
        #expect(store.dispatchAndWait(action: Increase()) == .reduced(version: 1))
        #expect(store.state.counter == 1)
    }

    @Test func aNavigationRoundTripsThroughJSONAndABrokenOneIsRefused() throws {
        let state = try NavigationReducerTests.twoTabs()
        let json = try JSONEncoder().encode(state)
        #expect(try JSONDecoder().decode(NavigationState.self, from: json) == state)
        let broken = #"{"tabs":[{"name":"a","stack":[]}],"selectedTab":"a","modals":[]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NavigationState.self, from: Data(broken.utf8)) }
        let unknownTab = #"{"tabs":[{"name":"a","stack":[{"screen":"x","key":null}]}],"selectedTab":"b","modals":[]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NavigationState.self, from: Data(unknownTab.utf8)) }
    }
}
