/// One permission a token can carry: what a route needs before it answers.
public enum Scope: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Reading: the state, view models, event streams, the action log, metrics.
    case read
    /// Changing the state: posting actions and view-model commands.
    case dispatch
    /// Managing stores: creating, deleting and listing the stores a token reaches.
    case manage

    /// The scope's name as it appears in configuration, tokens and `WWW-Authenticate`.
    public var name: String { rawValue }

    /// The scope's name.
    public var description: String { rawValue }

    /// The scope named by `bytes` (exact, case-sensitive, as OAuth scope tokens are), or nil.
    /// Compares bytes in place so that a token's claim is read without building strings.
    static func named<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Scope? {
        if bytes.elementsEqual("read".utf8) { return .read }
        if bytes.elementsEqual("dispatch".utf8) { return .dispatch }
        if bytes.elementsEqual("manage".utf8) { return .manage }
        return nil
    }
}
