public import ReMVVM

/// A navigation action that names a screen: its payload is the screen's fields,
/// `{"screen", "key"}`.
public protocol ScreenAction: StoreAction, Codable, Equatable {
    /// The screen it names.
    var target: Screen { get }

    /// The action naming `target`.
    init(target: Screen)
}

extension ScreenAction {
    /// The action naming the view model `screen` made with `key`.
    public init(_ screen: String, key: String? = nil) {
        self.init(target: Screen(screen, key: key))
    }

    /// Reads `{"screen", "key"}`.
    public init(from decoder: any Decoder) throws {
        self.init(target: try Screen(from: decoder))
    }

    /// Writes `{"screen", "key"}`.
    public func encode(to encoder: any Encoder) throws {
        try target.encode(to: encoder)
    }
}

// The actions with a payload (a screen, a tab), then the three that carry nothing.

/// `navigation.push {"screen", "key"}`: shows a screen on top of the selected tab's stack.
public struct Push: ScreenAction {
    /// The screen it pushes.
    public let target: Screen

    /// Pushes `target`.
    public init(target: Screen) {
        self.target = target
    }
}

/// `navigation.showModal {"screen", "key"}`: shows a screen over everything.
public struct ShowModal: ScreenAction {
    /// The screen it shows.
    public let target: Screen

    /// Shows `target` as a modal.
    public init(target: Screen) {
        self.target = target
    }
}

/// `navigation.selectTab {"tab"}`: shows the tab named `tab`, at the screen it was left on.
public struct SelectTab: StoreAction, Codable, Equatable {
    /// The tab's name.
    public var tab: String

    /// Selects the tab `tab`.
    public init(_ tab: String) {
        self.tab = tab
    }
}

/// `navigation.pop {}`: goes back one screen on the selected tab; on its root, changes nothing.
public struct Pop: StoreAction, Codable, Equatable {
    /// A pop.
    public init() {}
}

/// `navigation.popToRoot {}`: goes back to the selected tab's root screen.
public struct PopToRoot: StoreAction, Codable, Equatable {
    /// A pop to the root.
    public init() {}
}

/// `navigation.dismissModal {}`: closes the newest modal; without one, changes nothing.
public struct DismissModal: StoreAction, Codable, Equatable {
    /// A dismissal.
    public init() {}
}

/// The navigation action types: one set lookup tells a navigation action from any other, where a
/// cast per type would cost a failed dynamic cast each for every other action dispatched (the
/// middleware and the reducer see them all).
enum NavigationActionTypes {
    /// An array: six comparisons cost less than hashing the type into a set (about 150
    /// instructions, twice per dispatched action: the middleware's filter and the reducer).
    static let all: [ObjectIdentifier] = [
        ObjectIdentifier(Push.self), ObjectIdentifier(Pop.self), ObjectIdentifier(PopToRoot.self),
        ObjectIdentifier(ShowModal.self), ObjectIdentifier(DismissModal.self), ObjectIdentifier(SelectTab.self),
    ]

    /// Whether `action` is exactly one of the navigation actions (rule 11: no subclass matches).
    static func contains(_ action: any StoreAction) -> Bool {
        all.contains(actionTypeIdentifier(of: action))
    }
}
