import ConcurrencyKit
import Journal
import Logging
import ReMVVM

/// Hands a replica's stores whose following the log stopped for good to the service's
/// ``StoreDirectory``, off the follower's thread: a store deleted from the log (on another
/// replica) is dropped there, its streams end and it answers 404; a store stopped for another
/// reason (an entry it cannot apply) stays, answering 503 until it is unloaded.
final class DeletionWatch<State: StoreState & Codable>: Sendable {
    private typealias Drop = @Sendable (StoreID, String, ServedStore<State>) -> Bool
    private let drop = Lock<Drop?>(nil)

    init() {}

    /// Drops deleted stores from `directory` from now on (held weakly: the directory holds this).
    func watch(_ directory: StoreDirectory<ServedStoreLoader<State>>) {
        drop.withLock { drop in
            drop = { [weak directory] id, incarnation, served in
                directory?.dropIfDeleted(id, incarnation: incarnation, loaded: served) ?? false
            }
        }
    }

    /// The log stopped following `served` (loaded for `description`) for `reason`.
    func stopped(_ served: ServedStore<State>, description: StoreDescription, reason: String, logger: Logger) {
        guard let drop = drop.withLock({ $0 }) else { return }
        WorkerPool.blockingWork.run {
            if drop(description.id, description.incarnation, served) {
                logger.info("the store was deleted from the shared log (\(reason)): its streams ended, and it is no longer served here")
            } else {
                logger.error("stopped applying the shared log to this store: \(reason); writes to it answer 503 until it is unloaded and loaded again")
            }
        }
    }
}
