public import CodedErrors

/// What kind of access-control configuration is wrong (``AccessControlError``).
public enum AccessControlErrorCode: Sendable, Equatable {
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

/// Why access-control configuration cannot be used: static tokens, a JWT key, a setting.
///
/// The message says where the problem is (the entry's position, the setting's name) and never
/// contains a token, a secret or a key: it is safe to log and to print at start.
public typealias AccessControlError = CodedError<AccessControlErrorCode>
