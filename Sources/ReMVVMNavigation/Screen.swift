/// One screen the user can be shown: the name of a registered view model and, optionally, its
/// key (`/viewmodels/<screen>?key=<key>`). On the wire `{"screen": "counter", "key": null}`.
public struct Screen: Codable, Hashable, Sendable {
    /// The view model's registered name.
    public var screen: String
    /// The key the view model is made with, if any.
    public var key: String?

    /// A screen showing the view model `screen`, made with `key`.
    public init(_ screen: String, key: String? = nil) {
        self.screen = screen
        self.key = key
    }

    private enum CodingKeys: String, CodingKey {
        case screen, key
    }

    /// Writes `key` as `null` when absent, so that clients see one shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(screen, forKey: .screen)
        try container.encode(key, forKey: .key)
    }
}
