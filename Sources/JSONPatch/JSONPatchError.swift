public import CodedErrors

/// The kinds of ``JSONPatchError``.
public enum JSONPatchErrorCode: Sendable, Equatable {
    /// The bytes are not one JSON text (RFC 8259); the message says what and at which byte.
    case malformedJSON
    /// A string that is not a JSON pointer (RFC 6901): no leading `/`, or a `~` not followed
    /// by `0` or `1`.
    case malformedPointer
    /// A patch document that is not an array of operations, or an operation with a missing
    /// or mistyped member, or an unknown `op`.
    case malformedPatch
    /// A path that names no value: a missing member, an index past the end, a step into a
    /// number or a string.
    case pathNotFound
    /// An array index that is not a number without leading zeros, or `-` where only `add`
    /// may use it.
    case invalidIndex
    /// A `move` into its own child, or `remove` of the whole document.
    case invalidTarget
    /// A `test` whose value differs from the one at its path.
    case testFailed
}

/// Why JSON could not be read, a pointer could not be parsed, or a patch could not be applied:
/// a code to switch on and a message for a person.
public typealias JSONPatchError = CodedError<JSONPatchErrorCode>
