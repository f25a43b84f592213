/// One tab of a navigation: a name and a stack of screens, its root first. The stack is never
/// empty: `pop` and `popToRoot` stop at the root.
public struct NavigationTab: Codable, Equatable, Sendable {
    /// The tab's name (`navigation.selectTab {"tab": name}`).
    public var name: String
    /// The screens pushed on this tab, its root first, the one shown last.
    public internal(set) var stack: [Screen]

    /// A tab named `name` whose stack holds only `root`.
    public init(_ name: String, root: Screen) {
        self.name = name
        stack = [root]
    }

    private enum CodingKeys: String, CodingKey {
        case name, stack
    }

    /// Refuses a tab without a root screen (a damaged or hand-written state).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        stack = try container.decode([Screen].self, forKey: .stack)
        guard !stack.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .stack, in: container, debugDescription: "the tab \"\(name)\" has no root screen")
        }
    }
}
