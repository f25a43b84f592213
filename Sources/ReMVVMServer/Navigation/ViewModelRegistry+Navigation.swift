import ReMVVM
public import ReMVVMNavigation

extension ViewModelRegistry {
    /// The name the navigation view model is registered under.
    public static var navigationName: String { "navigation" }

    /// Registers the view model `navigation` for the navigation at `path` of the state:
    /// `{"tabs": [{"name", "stack": [{"screen", "key"}]}], "selectedTab", "modals": [{"screen",
    /// "key"}], "top": {"screen", "key", "viewModel"}}`, where `top` is the screen the user sees
    /// (`NavigationState.top`) with its view model as the factory makes it for
    /// that state (`null` while not available), so that a client renders from one stream
    /// (`/viewmodels/navigation/events`). Screens registered before or after it are rendered.
    public mutating func registerNavigation(at path: any KeyPath<State, NavigationState> & Sendable) {
        let screens = self
        navigationTabs = { state in state[keyPath: path].tabs.map(\.name) }
        navigationPath = path
        register(named: Self.navigationName) { state, _ in
            try NavigationViewModel.render(state[keyPath: path]) { screen in
                // A screen named like the navigation itself would render itself for ever.
                guard screen.screen != Self.navigationName, let render = screens.renderer(named: screen.screen) else {
                    return nil
                }
                return try render(state, screen.key)
            }
        }
    }

    /// Registers the navigation again when there is one, so that it renders the screens
    /// registered since.
    mutating func refreshNavigation() {
        guard let path = navigationPath else { return }
        registerNavigation(at: path)
    }

    /// The names a navigation may show: every registered view model but the navigation itself
    /// (for `NavigationMiddleware`).
    public var screenNames: [String] {
        names.filter { $0 != Self.navigationName }
    }
}

/// The JSON of the `navigation` view model.
enum NavigationViewModel {
    /// What is encoded before `top`, in the service's sorted-keys order.
    private struct Head: Encodable {
        let modals: [Screen]
        let selectedTab: String
        let tabs: [NavigationTab]
    }

    /// `navigation` as JSON, with `top`'s view model rendered by `renderTop` (nil: `null`).
    static func render(_ navigation: NavigationState, renderTop: (Screen) throws -> [UInt8]?) throws -> [UInt8] {
        var json = try JSONCoding.encode(Head(modals: navigation.modals, selectedTab: navigation.selectedTab, tabs: navigation.tabs))
        // `{…}` → `{…,"top":{"key":…,"screen":…,"viewModel":…}}`: "top" sorts after "tabs".
        json.removeLast()
        let top = navigation.top
        json += Array(",\"top\":{\"key\":".utf8)
        json += top.key.map(JSONCoding.string) ?? Array("null".utf8)
        json += Array(",\"screen\":".utf8) + JSONCoding.string(top.screen)
        json += Array(",\"viewModel\":".utf8) + (try renderTop(top) ?? Array("null".utf8))
        json += Array("}}".utf8)
        return json
    }
}
