import Journal

/// How a durable store keeps its history, from the service's configuration: a snapshot every
/// `snapshotEvery` versions, and the records the retention still wants after one. The journal's
/// and a replica's backends both pass it to their runtime.
struct JournalKeeping: Sendable {
    let snapshotEvery: UInt64
    let retention: JournalRetention

    init(_ configuration: ServiceConfiguration) {
        snapshotEvery = configuration.snapshotEvery
        retention = configuration.journalRetention
    }
}
