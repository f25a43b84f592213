/// One token of a JSON text, as ``StrictJSONReader/next()`` hands them out: structure, member
/// names and scalar values, strings and numbers as slices of the input (no copy, no `String`).
public enum JSONToken {
    /// `{`.
    case objectStart
    /// `}`.
    case objectEnd
    /// `[`.
    case arrayStart
    /// `]`.
    case arrayEnd
    /// A member name (its `:` already read); the member's value follows.
    case name(JSONString)
    /// A string value.
    case string(JSONString)
    /// A number value: its literal as written, checked against the grammar.
    case number(Slice<UnsafeBufferPointer<UInt8>>)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
}
