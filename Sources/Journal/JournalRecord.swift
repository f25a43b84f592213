/// One reduce as the journal keeps it: what `GET /actions` lists and what a restart replays.
public struct JournalRecord: Sendable, Equatable {
    /// The store version this action produced.
    public var version: UInt64
    /// The action's wire name (`"increase"`).
    public var type: String
    /// The action's payload as JSON (an object), or empty for an action without one.
    public var payload: [UInt8]
    /// When it was reduced, in milliseconds since 1970-01-01 UTC.
    public var time: Int64
    /// False when the record was read back from storage and does not match the checksum stored
    /// with it (``checksum``): some of its bytes changed on disk. Never to be replayed.
    public var isIntact: Bool

    /// Creates a record.
    public init(version: UInt64, type: String, payload: [UInt8], time: Int64, isIntact: Bool = true) {
        self.version = version
        self.type = type
        self.payload = payload
        self.time = time
        self.isIntact = isIntact
    }
}

/// The state at one version, encoded as JSON: a restart starts from the newest one.
public struct JournalSnapshot: Sendable, Equatable {
    /// The version the state is of.
    public var version: UInt64
    /// The state, encoded as JSON.
    public var state: [UInt8]
    /// When it was taken, in milliseconds since 1970-01-01 UTC.
    public var time: Int64
    /// False when the snapshot was read back from storage and does not match the checksum stored
    /// with it (``checksum``): never to be restored from.
    public var isIntact: Bool

    /// Creates a snapshot.
    public init(version: UInt64, state: [UInt8], time: Int64, isIntact: Bool = true) {
        self.version = version
        self.state = state
        self.time = time
        self.isIntact = isIntact
    }
}

/// What a journal holds when it is opened.
public struct JournalRecovery: Sendable, Equatable {
    /// The newest snapshot that matches its checksum, if any.
    public var snapshot: JournalSnapshot?
    /// The version of the newest record (or of the snapshot, if no record is newer); 0 when empty.
    public var lastVersion: UInt64
    /// The version of the oldest record kept, if any.
    public var earliestVersion: UInt64?
    /// Whether the storage was not closed the last time (a crash, `kill -9`, power loss): what
    /// it holds is every complete commit, and a last commit cut short — never acknowledged — was
    /// discarded, if there was one.
    public var previousStopWasUnclean: Bool
    /// Whether the storage had been used before (its data directory held the lock file) but its
    /// journal file was missing or empty, so a new one was started: the server says so, since
    /// clients' version tags from before now name other states.
    public var journalWasMissing: Bool
    /// The versions of newer snapshots passed over because they do not match their checksums
    /// (``snapshot`` is the newest intact one): the server says so.
    public var damagedSnapshots: [UInt64]

    /// Creates a recovery.
    public init(
        snapshot: JournalSnapshot?, lastVersion: UInt64, earliestVersion: UInt64?, previousStopWasUnclean: Bool = false,
        journalWasMissing: Bool = false, damagedSnapshots: [UInt64] = []
    ) {
        self.snapshot = snapshot
        self.lastVersion = lastVersion
        self.earliestVersion = earliestVersion
        self.previousStopWasUnclean = previousStopWasUnclean
        self.journalWasMissing = journalWasMissing
        self.damagedSnapshots = damagedSnapshots
    }
}

/// How hard a commit pushes records to the disk before it counts as done.
public enum JournalSync: String, Sendable, CaseIterable {
    /// fsync before a commit returns: an acknowledged action survives a power loss. The default.
    case full
    /// fsync at checkpoints only: survives a crash of the process, may lose the last commits on
    /// a power loss.
    case normal
    /// No fsync: for tests and throwaway data.
    case off
}
