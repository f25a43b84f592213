/// An error of one area of the server: a code to switch on and a message for a person.
///
/// Each module names its own error as this type over its own code enum, e.g.
/// `public typealias JournalError = CodedError<JournalErrorCode>`: `JournalError.Code`,
/// `JournalError(code:message:)`, `error.code` and `catch let error as JournalError` read as they
/// would for a struct of its own, and errors of different modules stay different types. Errors
/// that carry more than a code and a message (a status, a limit, an SQLSTATE) are types of their own.
public struct CodedError<Kind: Sendable & Equatable>: Error, Sendable, Equatable, CustomStringConvertible {
    /// The area's kinds of failure: its code enum.
    public typealias Code = Kind

    /// What kind of failure it is.
    public let code: Code
    /// What went wrong and where, for a person (each area says what its messages hold).
    public let message: String

    /// An error of `code` with `message`.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
