public import ReMVVM

/// Decides the navigation actions before the reducer: a screen that is not one of `screens` or a
/// tab the navigation does not have is rejected (the service answers `422` with the reason), and
/// an action that would change nothing (``NavigationReducer/changesNothing(_:in:)``) ends there
/// with ``ReMVVM/Interceptor/leaveUnchanged()`` (no new version; the service answers `200` with
/// the current version). Every other action passes on.
///
/// Give it the path to the navigation in the domain's root state and the screens there are (the
/// names of the registered view models): `NavigationMiddleware(at: \AppState.navigation,
/// screens: viewModels.names)`.
public struct NavigationMiddleware<Root: Sendable>: AnyMiddleware, Sendable {
    private let navigation: @Sendable (Root) -> NavigationState
    private let screens: Set<String>

    /// A middleware for the navigation at `path` of the root state, which knows `screens`.
    public init(at path: any KeyPath<Root, NavigationState> & Sendable, screens: some Sequence<String>) {
        navigation = { $0[keyPath: path] }
        self.screens = Set(screens)
    }

    /// The navigation actions only: every other action is passed over without calling it.
    public func handles(_ action: any StoreAction) -> Bool {
        NavigationActionTypes.contains(action)
    }

    /// The navigation action types, exactly (what ``handles(_:)`` admits), so that a store passes
    /// every other action over without reading this middleware: each store has one of its own,
    /// and over many stores reading it would be a cold line or two per dispatch.
    public var actionFilter: MiddlewareActionFilter {
        .exactTypes(NavigationActionTypes.all)
    }

    /// Rejects an unknown screen or tab, ends an action that changes nothing, passes the rest on.
    public func onNext<State>(
        for state: State,
        action: any StoreAction,
        interceptor: Interceptor<any StoreAction, State>,
        dispatcher: any Dispatcher
    ) {
        guard NavigationActionTypes.contains(action), let root = state as? Root else { return interceptor.next() }
        let current = navigation(root)
        if let screen = ((action as? Push)?.target ?? (action as? ShowModal)?.target)?.screen, !screens.contains(screen) {
            return interceptor.reject(reason: "no screen is named \"\(screen)\"; the screens are \(screens.sorted().joined(separator: ", "))")
        }
        if let tab = (action as? SelectTab)?.tab, !current.hasTab(named: tab) {
            return interceptor.reject(reason: "no tab is named \"\(tab)\"; the tabs are \(current.tabs.map(\.name).joined(separator: ", "))")
        }
        if NavigationReducer.changesNothing(action, in: current) {
            return interceptor.leaveUnchanged()
        }
        interceptor.next()
    }
}
