import Journal
import MicroHTTP
import ReMVVM

/// One event stream being rebuilt from the journal by ``JournalReplay``: the state it has reached,
/// and what it holds to send. A value owned by one replay thread at a time; ``step(_:)`` does a
/// bounded piece of work (one chunk) and says what next.
struct ReplayJob<State: StoreState & Encodable>: Sendable {
    /// What a job needs from its replay: the same for every job.
    struct Context: Sendable {
        let history: any VersionHistory<State>
        let frames: StateFrameEncoder
        /// Frames are sent in chunks of about this many bytes.
        let chunkBytes: Int
        let retryField: [UInt8]
        let continuation: @Sendable (EventStream, UInt64, Int) -> ReplayContinuation<State>
    }

    /// What a job needs next.
    enum Outcome: Equatable {
        /// More work: run it again.
        case progressed
        /// Its stream has too much pending: run it again once at most this many bytes are.
        case waitForRoom(Int)
        /// Handed over to the event hub, or ended (the stream is closed or given up).
        case finished
    }

    /// Why a stream's replay stops before its handover.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Records read at a time from the journal.
    static var batchSize: Int { 512 }

    let stream: EventStream
    /// The client's last version: versions up to it are rebuilt, not sent.
    let resumeAfter: UInt64
    /// The newest version rebuilt (and, past `resumeAfter`, put in `chunk` or sent) ...
    private(set) var version: UInt64
    /// ... and its state, where the next record applies.
    private var state: State
    /// Frames rebuilt and not sent yet.
    private var chunk: [UInt8] = []
    /// Whether the stream has had its first bytes (`retry:`).
    private(set) var hasSentRetry = false
    /// Records read ahead from the journal, not yet applied.
    private var records: ArraySlice<JournalRecord> = []
    /// The size of the last frame made: how many versions to ask the ring for at once.
    private var frameBytes = 256
    /// Versions sent so far (for the log).
    private(set) var sentVersions = 0
    /// Why the version after `version` cannot be rebuilt, found while making `chunk`: thrown once
    /// the chunk (the versions before it) is sent.
    private var failure: (any Error)?

    /// A job that rebuilds from `base` and sends every version after `resumeAfter`.
    init(stream: EventStream, resumeAfter: UInt64, base: StoreSnapshot<State>) {
        self.stream = stream
        self.resumeAfter = resumeAfter
        version = base.version
        state = base.state
    }

    /// Sends what is ready if the stream has room, then makes the next chunk, or hands the stream
    /// over to the hub once it would send the versions the hub holds. Throws ``Failure`` or a
    /// journal error when the versions cannot be rebuilt (records gone, an action that does not
    /// decode, a state that does not encode): the caller ends the stream then.
    mutating func step(_ context: Context) throws -> Outcome {
        guard !stream.isClosed else { return .finished }
        let limit = stream.maxPendingBytes
        if !chunk.isEmpty {
            let pending = stream.pendingBytes
            if pending > 0, pending + chunk.count > limit {
                return .waitForRoom(max(0, limit - chunk.count))
            }
            guard stream.send(chunk) else { return .finished }
            chunk = []
        }
        if let failure { throw failure }
        if version < resumeAfter {
            try rebuild(through: resumeAfter, sending: false, context)
            return .progressed
        }
        // The hub sends what follows the handover at once: leave it room for that.
        if stream.pendingBytes > limit / 2 {
            return .waitForRoom(limit / 2)
        }
        if !hasSentRetry {
            // The first block's `retry:`; the first event follows it in the same block.
            hasSentRetry = true
            guard stream.send(context.retryField) else { return .finished }
        }
        let ringLimit = max(1, min(256, context.chunkBytes / max(1, frameBytes)))
        switch context.continuation(stream, version, ringLimit) {
        case .handedOver:
            return .finished
        case .stopped:
            stream.close()
            return .finished
        case .ring(let publications):
            for publication in publications {
                guard publication.version == version + 1 else {
                    throw Failure(description: "the ring gave version \(publication.version) after \(version)")
                }
                add(try context.frames.frame(for: publication).frame)
                version = publication.version
                state = publication.state
            }
            records = records.drop { $0.version <= version }
            return .progressed
        case .journal(let newest):
            try rebuild(through: newest, sending: true, context)
            return .progressed
        }
    }

    /// Applies records until `target` (or, when sending, until a chunk is full), making the frame
    /// of each when `sending`.
    private mutating func rebuild(through target: UInt64, sending: Bool, _ context: Context) throws {
        var applied = 0
        while version < target, applied < Self.batchSize, !sending || chunk.count < context.chunkBytes {
            if records.isEmpty {
                records = try context.history.records(after: version, limit: Self.batchSize)[...]
            }
            guard let record = records.first, record.version == version + 1 else {
                throw Failure(description: "the journal no longer holds version \(version + 1) (removed after a snapshot)")
            }
            records = records.dropFirst()
            do {
                let next = try context.history.reduce(state, with: record)
                if sending {
                    let action = ActionWireEncoder.envelope(type: record.type, payload: record.payload)
                    add(try context.frames.frame(version: record.version, action: action, state: next).frame)
                }
                state = next
                version = record.version
                applied += 1
            } catch where sending && !chunk.isEmpty {
                // The versions before it go out first.
                failure = error
                return
            }
        }
    }

    private mutating func add(_ frame: [UInt8]) {
        chunk += frame
        frameBytes = frame.count
        sentVersions += 1
    }
}
