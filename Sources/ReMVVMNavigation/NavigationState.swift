/// Where a user is in an app, held in the store like any other state (ReMVVM's navigation as
/// state): tabs, each a stack of screens; the selected tab; modals shown over them, the newest
/// last. A domain composes it into its own state and reduces it with ``NavigationReducer``.
///
/// On the wire `{"tabs": [{"name", "stack": [{"screen", "key"}]}], "selectedTab": name,
/// "modals": [{"screen", "key"}]}`.
public struct NavigationState: Codable, Equatable, Sendable {
    /// The tabs, in the order the app shows them.
    public internal(set) var tabs: [NavigationTab]
    /// The name of the tab shown.
    public internal(set) var selectedTab: String
    /// The modals shown over the tabs, the newest (the one on top) last.
    public internal(set) var modals: [Screen]

    /// A navigation with `tabs` (each at its root), showing `selectedTab` (the first by default)
    /// and no modal. Throws ``NavigationError`` for no tab, two tabs of one name, or a selected
    /// tab that is not one of them.
    public init(tabs: [NavigationTab], selectedTab: String? = nil) throws(NavigationError) {
        guard let first = tabs.first else { throw NavigationError("a navigation needs at least one tab") }
        var names = Set<String>()
        for tab in tabs where !names.insert(tab.name).inserted {
            throw NavigationError("two tabs are named \"\(tab.name)\"")
        }
        let selected = selectedTab ?? first.name
        guard names.contains(selected) else {
            throw NavigationError("the selected tab \"\(selected)\" is not one of the tabs (\(tabs.map(\.name).joined(separator: ", ")))")
        }
        self.tabs = tabs
        self.selectedTab = selected
        modals = []
    }

    /// A navigation of one tab, named after its root screen, at that root.
    public init(root: Screen) {
        tabs = [NavigationTab(root.screen, root: root)]
        selectedTab = root.screen
        modals = []
    }

    private enum CodingKeys: String, CodingKey {
        case tabs, selectedTab, modals
    }

    /// Refuses a navigation that breaks the rules of ``init(tabs:selectedTab:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                tabs: try container.decode([NavigationTab].self, forKey: .tabs),
                selectedTab: try container.decode(String.self, forKey: .selectedTab)
            )
        } catch let error as NavigationError {
            throw DecodingError.dataCorruptedError(forKey: .tabs, in: container, debugDescription: error.message)
        }
        modals = try container.decode([Screen].self, forKey: .modals)
    }

    /// The screen the user sees: the newest modal, else the top of the selected tab's stack.
    public var top: Screen {
        if let modal = modals.last { return modal }
        return selected.stack[selected.stack.count - 1]
    }

    /// The selected tab.
    public var selected: NavigationTab {
        // The initializers and the reducer keep `selectedTab` one of `tabs`.
        tabs.first { $0.name == selectedTab } ?? tabs[0]
    }

    /// Whether a tab of this name exists.
    public func hasTab(named name: String) -> Bool {
        tabs.contains { $0.name == name }
    }

    /// The index of the selected tab in ``tabs``.
    var selectedIndex: Int {
        tabs.firstIndex { $0.name == selectedTab } ?? 0
    }
}

/// A navigation that breaks its rules: no tab, two tabs of one name, an unknown selected tab.
public struct NavigationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
