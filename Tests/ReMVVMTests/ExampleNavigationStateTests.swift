import ConcurrencyKit
import ExampleApp
import Foundation
import ReMVVM
import ReMVVMNavigation
import Testing

/// The example's navigation as state (docs/navigation.md): where it starts, how older states
/// read, and the login modal closed by the reducer, so that a replay closes it too.
@Suite struct ExampleNavigationStateTests {
    @Test func aStateWrittenBeforeTheExampleHadNavigationReadsAtTheStart() throws {
        let state = try JSONDecoder().decode(AppState.self, from: Data(#"{"counter":3,"user":null}"#.utf8))
        #expect(state == AppState(counter: 3))
        #expect(state.navigation == AppState.startNavigation)
        #expect(state.navigation.tabs.map(\.name) == ["counter", "account"])
        #expect(state.navigation.top == Screen("counter"))
    }

    @Test func aNavigatedStateRoundTripsThroughItsJSON() throws {
        let store = try ExampleApp.store()
        #expect(store.dispatchAndWait([SelectTab("account"), ShowModal("login")]) == .reduced(version: 2))
        let json = try JSONEncoder().encode(store.state)
        #expect(try JSONDecoder().decode(AppState.self, from: json) == store.state)
    }

    @Test func aLoginClosesTheLoginModalAndAReplayOfTheJournaledActionsDoesTheSame() throws {
        let original = try ExampleApp.store()
        let reduced = Lock<[any StoreAction]>([])
        original.addPublicationHandler { publication in reduced.withLock { $0.append(publication.action) } }
        #expect(original.dispatchAndWait([SelectTab("account"), ShowModal("login")]) == .reduced(version: 2))
        #expect(original.dispatchAndWait(action: Login(firstName: "Ada", lastName: "Lovelace")) == .reduced(version: 3))
        #expect(original.state.navigation.modals.isEmpty)
        #expect(original.state.navigation.top == Screen("greetings"))

        let restored = try ExampleApp.store()
        for action in reduced.withLock({ $0 }) {
            restored.replay(action)
        }
        #expect(restored.state == original.state)
    }

    @Test func aLoginUnderAnotherModalLeavesTheModals() throws {
        let store = try ExampleApp.store()
        #expect(store.dispatchAndWait([ShowModal("login"), ShowModal("counterInBase", key: "2")]) == .reduced(version: 2))
        #expect(store.dispatchAndWait(action: Login(firstName: "Ada", lastName: "Lovelace")) == .reduced(version: 3))
        #expect(store.state.navigation.modals == [Screen("login"), Screen("counterInBase", key: "2")])
    }
}
