public import PostgresJournal
public import ReMVVM
public import ReMVVMServer
public import SQLiteJournal

extension StoreServing {
    /// Every store of a replica's shared log (`docs/replicas.md`, "Many stores"): the log is the
    /// catalog (its head rows), each store loaded is a replica of the store's view of the log,
    /// and `file` (the replica's data directory) keeps each store's snapshots, for the store's
    /// incarnation; a store deleted from the log loses them.
    public static func replicas(
        of log: PostgresSharedLog, snapshotsIn file: SQLiteJournalStorage, makeStore: @escaping @Sendable () throws -> Store<State>
    ) -> StoreServing {
        StoreServing(
            catalog: log,
            storage: .replica(ReplicaStores(
                log: { log.view(of: $0) },
                snapshots: { try file.replicaStorage(for: $0) },
                forget: { _ = try file.delete($0) },
                saveSnapshots: { try file.saveSnapshots($0) },
                register: { try log.registerSnapshots(of: $0, $1) }
            )),
            makeStore: makeStore
        )
    }
}
