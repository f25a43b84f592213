/// Why access-control configuration cannot be used: static tokens, a JWT key, a setting.
///
/// The message says where the problem is (the entry's position, the setting's name) and never
/// contains a token, a secret or a key: it is safe to log and to print at start.
public struct AccessControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of configuration is wrong.
    public enum Code: Sendable, Equatable {
        /// A scope list names no scope or a scope that does not exist.
        case invalidScopes
        /// A static token's store list (after `@`) holds a pattern that cannot name a store.
        case invalidStores
        /// A static token entry is empty, malformed, repeated, or holds characters a Bearer token cannot.
        case invalidStaticTokens
        /// A JWT key cannot be read: not PEM, the wrong key type, too short a secret.
        case invalidKey
        /// Another JWT setting is out of range (leeway, length limit, issuer, audience).
        case invalidSetting
    }

    /// What kind of configuration is wrong.
    public let code: Code
    /// What is wrong and where, without secrets.
    public let message: String

    /// An error with `code` and a `message` that must not contain secrets.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

}
