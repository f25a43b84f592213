public import CodedErrors

/// The kinds of ``JournalError``, for the code that decides what to do (refuse to start, answer
/// 503, retry).
public enum JournalErrorCode: Sendable, Equatable {
    /// Another process holds the data directory.
    case locked
    /// The directory or file cannot be created, opened or written (permissions, not a directory).
    case unusable
    /// Written by a newer server: its format is unknown here.
    case newerFormat
    /// A record or snapshot cannot be read, or versions have a gap.
    case corrupt
    /// A commit failed (disk full, I/O error); what it held is not durable.
    case writeFailed
    /// The journal was closed.
    case closed
    /// Records a load needs were removed (a shared log's retention, before this replica
    /// registered the store): retrying here does not bring them back.
    case recordsRemoved
    /// A commit's connection broke while it was on its way: what it held may or may not be
    /// stored (a shared log; a retry with the same idempotency key resolves it).
    case outcomeUnknown
}

/// Why a journal cannot be opened, read or written. The message is a sentence naming the file or
/// log, the version, and what to do.
public typealias JournalError = CodedError<JournalErrorCode>
