import ReMVVM
import ReMVVMNavigation
import Testing

/// Rules 24–26 of docs/store-semantics.md ("Navigation"), on the reducer alone.
@Suite struct NavigationReducerTests {
    /// Two tabs: "counter" (root `counter`) and "account" (root `greetings`).
    static func twoTabs() throws -> NavigationState {
        try NavigationState(tabs: [
            NavigationTab("counter", root: Screen("counter")),
            NavigationTab("account", root: Screen("greetings")),
        ])
    }

    private func reduce(_ state: NavigationState, _ actions: any StoreAction...) -> NavigationState {
        actions.reduce(state) { NavigationReducer.reduce(state: $0, with: $1) }
    }

    @Test func rule24_pushPutsTheScreenOnTopOfTheSelectedTabAndPopRemovesItButNeverTheRoot() throws {
        let start = try Self.twoTabs()
        let pushed = reduce(start, Push("history", key: "3"), Push("detail"))
        #expect(pushed.selected.stack == [Screen("counter"), Screen("history", key: "3"), Screen("detail")])
        #expect(pushed.top == Screen("detail"))
        #expect(pushed.tabs[1].stack == [Screen("greetings")], "the other tab keeps its stack")
        let popped = reduce(pushed, Pop())
        #expect(popped.top == Screen("history", key: "3"))
        #expect(reduce(popped, Pop(), Pop(), Pop()).selected.stack == [Screen("counter")], "a pop stops at the root")
        #expect(reduce(pushed, PopToRoot()).selected.stack == [Screen("counter")])
    }

    @Test func rule25_aModalCoversEverythingAndIsTheTopUntilDismissed() throws {
        let start = reduce(try Self.twoTabs(), Push("history"))
        let covered = reduce(start, ShowModal("login"), ShowModal("help", key: "login"))
        #expect(covered.top == Screen("help", key: "login"), "the newest modal is the top")
        #expect(reduce(covered, Push("detail")).modals.count == 2, "a push goes to the tab under the modals")
        #expect(reduce(covered, Push("detail")).top == Screen("help", key: "login"))
        let dismissed = reduce(covered, DismissModal())
        #expect(dismissed.top == Screen("login"))
        #expect(reduce(dismissed, DismissModal()).top == Screen("history"), "without modals the tab's top shows")
        #expect(reduce(dismissed, DismissModal(), DismissModal()) == reduce(dismissed, DismissModal()))
    }

    @Test func rule26_eachTabKeepsItsOwnStackAndSelectingOneShowsWhereItWasLeft() throws {
        let start = reduce(try Self.twoTabs(), Push("history"))
        let account = reduce(start, SelectTab("account"), Push("profile"))
        #expect(account.selectedTab == "account")
        #expect(account.top == Screen("profile"))
        let back = reduce(account, SelectTab("counter"))
        #expect(back.top == Screen("history"), "the counter tab shows the screen it was left on")
        #expect(back.tabs[1].stack == [Screen("greetings"), Screen("profile")])
        #expect(reduce(back, SelectTab("nowhere")) == back, "an unknown tab never reaches the state")
    }

    @Test func otherActionsLeaveTheNavigationAsItIs() throws {
        struct Unrelated: StoreAction {}
        let start = try Self.twoTabs()
        #expect(NavigationReducer.reduce(state: start, with: Unrelated()) == start)
    }

    @Test func whatChangesNothingIsKnownBeforeTheReducer() throws {
        let start = try Self.twoTabs()
        #expect(NavigationReducer.changesNothing(Pop(), in: start))
        #expect(NavigationReducer.changesNothing(PopToRoot(), in: start))
        #expect(NavigationReducer.changesNothing(DismissModal(), in: start))
        #expect(NavigationReducer.changesNothing(SelectTab("counter"), in: start))
        #expect(!NavigationReducer.changesNothing(SelectTab("account"), in: start))
        #expect(!NavigationReducer.changesNothing(Push("counter"), in: start), "pushing the same screen again is a change")
        let deeper = reduce(start, Push("history"), ShowModal("login"))
        #expect(!NavigationReducer.changesNothing(Pop(), in: deeper))
        #expect(!NavigationReducer.changesNothing(DismissModal(), in: deeper))
    }

    @Test func aNavigationNeedsTabsWithRootsAndOneOfThemSelected() throws {
        #expect(throws: NavigationError.self) { try NavigationState(tabs: []) }
        #expect(throws: NavigationError.self) {
            try NavigationState(tabs: [NavigationTab("a", root: Screen("x")), NavigationTab("a", root: Screen("y"))])
        }
        #expect(throws: NavigationError.self) { try NavigationState(tabs: [NavigationTab("a", root: Screen("x"))], selectedTab: "b") }
        #expect(NavigationState(root: Screen("home")).top == Screen("home"))
    }
}
