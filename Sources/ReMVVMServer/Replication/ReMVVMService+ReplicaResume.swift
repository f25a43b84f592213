import MicroHTTP

extension ReMVVMService {
    /// How long a stream resuming on a replica waits for the replica to apply the client's last
    /// version before it starts with the reset instead.
    static var replicaResumeTimeout: Duration { .seconds(10) }

    /// `respond()`'s answer, once this replica has applied the version `lastEventId` names when
    /// that version is in the shared log but not applied here yet: a client that read it on
    /// another replica and reconnects here (behind a load balancer) resumes where it was, instead
    /// of being reset to an older state. At once otherwise, and after ``replicaResumeTimeout``
    /// whatever happened (the stream then starts with the reset, as for any version this replica
    /// does not have).
    func afterReplicaApplies(lastEventId: String?, _ respond: @escaping @Sendable () -> Response) -> Response {
        guard let replica, let lastEventId,
              let version = configuration.versionTags.version(ofEventId: Substring(lastEventId)),
              version > store.version, version <= replica.log.knownHead else {
            return respond()
        }
        let pending = PendingResponse()
        replica.log.whenApplied(version, timeout: Self.replicaResumeTimeout) { _ in
            pending.complete(respond())
        }
        return Response(pending: pending)
    }
}
