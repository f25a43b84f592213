import MicroHTTP
import ReMVVM

extension ServedStore {
    /// `respond()`'s answer once a stream resuming after `lastEventId` can be served here: at
    /// once, except on a replica that has not applied the version the id names yet while the
    /// shared log holds it (``StoreBackend/afterApplying(_:_:)``).
    func whenResumable(after lastEventId: String?, _ respond: @escaping @Sendable () -> Response) -> Response {
        guard let lastEventId, let version = versionTags.version(ofEventId: Substring(lastEventId)) else {
            return respond()
        }
        return backend.afterApplying(version, respond)
    }

    /// The state at `version` while the event ring holds it (or, in memory, when it is the
    /// version the server started at), or rebuilt from the journal (the newest snapshot at or
    /// before it, then its records through the reducers); nil when neither can. Reads the journal
    /// on the calling (HTTP worker) thread.
    func state(atVersion version: UInt64) -> State? {
        if let publication = hub.publication(atVersion: version) {
            return publication.state
        }
        if let state = hub.startState(atVersion: version) {
            return state
        }
        guard let history = publisher.history else { return nil }
        do {
            return try history.state(atVersion: version)
        } catch {
            logger.warning("the state at version \(version) cannot be rebuilt for a resuming view-model stream: \(error)")
            return nil
        }
    }
}
