public import ReMVVM

/// Reduces a ``NavigationState`` with the navigation actions (``Push``, ``Pop``, ``PopToRoot``,
/// ``ShowModal``, ``DismissModal``, ``SelectTab``); every other action leaves it as it is. Call it
/// from the root reducer for the substate that holds the navigation, as for any substate:
///
/// ```swift
/// AppState(counter: CounterReducer.reduce(state: state.counter, with: action),
///          navigation: NavigationReducer.reduce(state: state.navigation, with: action))
/// ```
///
/// Pure, like every reducer (the journal replays it). It does not judge: an unknown screen or tab
/// and the actions that would change nothing are decided before it, by ``NavigationMiddleware``
/// (an unknown tab selected anyway is ignored here, so that a state never names a missing tab).
public enum NavigationReducer: Reducer {
    /// The navigation after `action`.
    public static func reduce(state: NavigationState, with action: any StoreAction) -> NavigationState {
        guard NavigationActionTypes.contains(action) else { return state }
        var state = state
        let tab = state.selectedIndex
        switch action {
        case let push as Push:
            state.tabs[tab].stack.append(push.target)
        case is Pop:
            if state.tabs[tab].stack.count > 1 { state.tabs[tab].stack.removeLast() }
        case is PopToRoot:
            state.tabs[tab].stack.removeSubrange(1...)
        case let modal as ShowModal:
            state.modals.append(modal.target)
        case is DismissModal:
            if !state.modals.isEmpty { state.modals.removeLast() }
        case let select as SelectTab:
            if state.hasTab(named: select.tab) { state.selectedTab = select.tab }
        default:
            break
        }
        return state
    }

    /// Whether `action` would leave `state` as it is (a `pop` on a root screen, a `dismissModal`
    /// without a modal, a `popToRoot` at the root, the selected tab selected again); false for an
    /// action that is no navigation action.
    public static func changesNothing(_ action: any StoreAction, in state: NavigationState) -> Bool {
        switch action {
        case is Pop, is PopToRoot:
            state.selected.stack.count == 1
        case is DismissModal:
            state.modals.isEmpty
        case let select as SelectTab:
            select.tab == state.selectedTab
        default:
            false
        }
    }
}
