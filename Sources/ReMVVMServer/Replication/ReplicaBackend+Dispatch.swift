import Journal
import MicroHTTP
import ReMVVM

extension ReplicaBackend {
    /// How long a request waits for its own replica to apply what it appended before it answers
    /// 503 (the actions are stored; the answer says so).
    static var applyTimeout: Duration { .seconds(10) }

    /// The dispatch path of a replica (`docs/replicas.md`): readiness (503), `If-Match` that
    /// already cannot hold (412), `Idempotency-Key` (a kept answer from any replica, looked up
    /// without holding the calling thread; `plan` is then called before the lookup), then
    /// middleware **once, here**, proposing instead of reducing; the proposed actions go to the
    /// shared log as one group (`If-Match` and the key checked under the head's lock), and the
    /// answer is sent once this replica applied them, so the client reads its own writes here. A
    /// keyed request that appends nothing keeps its answer in the log all the same.
    func dispatch(
        key: IdempotencyKey?, ifMatch: String?, plan: @escaping @Sendable (State) -> DispatchPlan, in served: ServedStore<State>
    ) -> Response {
        // Not started (a router called without starting the service): no log yet; in memory,
        // as it always has.
        guard let runtime else { return served.dispatchAtOnce(key: key, ifMatch: ifMatch, plan: plan) }
        let log = runtime.log
        switch log.status {
        case .following:
            break
        case .catchingUp:
            return Problem.replicaNotReady("catching up with the log").response
        case .unavailable(let reason):
            return Problem.replicaNotReady("cannot reach the log: \(reason)").response
        case .stopped(let reason):
            return Problem.replicaNotReady("stopped following the log: \(reason ?? "shutting down")").response
        }
        // No refusal on the appender's last failure: only a new append can clear it (PostgreSQL
        // back); while the log is down, the follower's status says so, and an append fails fast.
        var expectedHeads: Set<UInt64>?
        if let ifMatch {
            expectedHeads = IfMatch.acceptedVersions(ifMatch, tags: served.versionTags)
            // Versions never go back: past every version named here locally, the head is too.
            let applied = store.version
            if let expected = expectedHeads, expected.allSatisfy({ $0 < applied }) {
                return served.versionMismatch(current: applied).response
            }
        }
        // The plan reads the state this replica applied (what its reads show).
        let planned = plan(runtime.publisher.snapshot.state)
        guard let key else {
            return propose(planned, key: nil, expectedHeads: expectedHeads, log: log, in: served)
        }
        // The key is looked up in the log without holding this thread (lookups of concurrent
        // requests go together, `PostgresAnswerLookup`), so the plan is made first: it only
        // decodes, or reads the visible state for a command, and it is dropped when the key
        // answers instead.
        let pending = PendingResponse()
        served.idempotencyKeys.claim(key, now: ActionJournalCodec.now()) { [self, expectedHeads] claim in
            if let answered = served.response(for: claim) {
                return pending.complete(answered)
            }
            pending.complete(forwarding: propose(planned, key: key, expectedHeads: expectedHeads, log: log, in: served))
        }
        return Response(pending: pending)
    }

    /// A replica's dispatch once the key (if any) is claimed: middleware proposes `planned`'s
    /// actions, which go to the log as one group with the answer kept for `key`; the answer is
    /// sent once this replica applied them.
    private func propose(
        _ planned: DispatchPlan, key: IdempotencyKey?, expectedHeads: Set<UInt64>?, log: any SharedLog, in served: ServedStore<State>
    ) -> Response {
        let metrics = served.metrics
        let release: @Sendable () -> Void = { [idempotencyKeys = served.idempotencyKeys] in if let key { idempotencyKeys.release(key) } }
        let actions: [any StoreAction]
        switch planned {
        case .dispatch(let planned):
            actions = planned
        case .answer(let response):
            release()
            return response
        }
        let proposal = store.propose(actions) { [self] late in appendLate(late, to: log) }
        let receipts = proposal.receipts
        let logged = proposal.actions.enumerated().compactMap { index, action in
            // By index, nil past the end: a receipt missing never drops its action.
            codec.record(of: action, receipt: index < receipts.count ? receipts[index] : nil, version: 0, time: ActionJournalCodec.now())
                .map { LoggedAction(type: $0.type, payload: $0.payload, time: $0.time) }
        }
        var answer = proposalAnswer(proposal, requested: actions)
        // Nothing to append, but an answer to keep (middleware held the actions: 202; rejected
        // the first: 422; or nothing would change: 200 with the version this replica applied):
        // the log keeps it all the same, so that a retry on any replica gets it and runs no
        // middleware again.
        let keepsOnlyTheAnswer = proposal.actions.isEmpty && key != nil && answer.isKept
        guard keepsOnlyTheAnswer || (!logged.isEmpty && logged.count == proposal.actions.count) else {
            // Nothing to append and nothing to keep (no key, or a refusal): a retry is proposed anew.
            release()
            metrics?.countActions(actions, outcome: outcome(of: proposal, version: nil))
            return answer.response()
        }
        var group = LogGroup(actions: logged, expectedHeads: expectedHeads)
        if let key, answer.isKept {
            if answer.status == 200, !proposal.actions.isEmpty {
                // `{"version":N}`: N is known once the log assigned the versions.
                answer.body = Array("{\"version\":}".utf8)
                group.answerVersionOffset = answer.body.count - 1
            }
            group.answer = answer.kept(for: key, time: ActionJournalCodec.now())
        }
        let pending = PendingResponse()
        let logger = logger
        let decided = answer
        log.submit(group) { [self] result in
            switch result {
            case .success(.appended(let versions)):
                log.whenApplied(versions.upperBound, timeout: Self.applyTimeout) { [self] applied in
                    release()
                    metrics?.countActions(actions, outcome: outcome(of: proposal, version: versions.upperBound))
                    guard applied else {
                        logger.error("versions \(versions) are in the shared log but this replica has not applied them")
                        return pending.complete(Problem.notYetApplied(versions.upperBound).response)
                    }
                    pending.complete((decided.status == 200 ? .applied(versions.upperBound) : decided).response())
                }
            case .success(.kept):
                release()
                metrics?.countActions(actions, outcome: outcome(of: proposal, version: nil))
                pending.complete(decided.response())
            case .success(.headMoved(let head)):
                release()
                metrics?.countActions(actions, outcome: .preconditionFailed(currentVersion: head))
                pending.complete(served.versionMismatch(current: head).response)
            case .success(.duplicateKey(let duplicate)):
                // Another replica stored this key meanwhile: its answer is the answer.
                release()
                let kept = try? log.answer(forKey: duplicate)
                if let kept, let key, kept.fingerprint == key.fingerprint {
                    pending.complete(DispatchAnswer(kept: kept).response(replayed: true))
                } else if kept != nil {
                    pending.complete(Problem.idempotencyKeyReused.response)
                } else {
                    pending.complete(Problem.keyStoredElsewhereUnreadable.response)
                }
            case .success(.storeNotFound):
                // The store this replica serves is gone from the log (deleted, maybe created again
                // as a new store its `If-Match` and versions mean nothing in): nothing appended;
                // answered as every request after a deletion is (the follower drops the store).
                release()
                pending.complete(Problem.storeNotFound(served.id).response)
            case .success(.unstorable(let reason)):
                release()
                logger.warning("the shared log refused to store the actions of a request: \(reason)")
                metrics?.countActions(actions, outcome: .rejected(reason: reason, index: 0))
                pending.complete(Problem.actionNotStorable(reason).response)
            case .failure(let error):
                release()
                logger.error("appending to the shared log failed: \(error)")
                pending.complete(error.code == .outcomeUnknown ? Problem.appendOutcomeUnknown.response : Problem.journalUnavailable.response)
            }
        }
        return Response(pending: pending)
    }

    /// What the client gets for `proposal`, before the log assigned versions (a `200` is
    /// completed with the version once applied).
    private func proposalAnswer(_ proposal: Proposal, requested: [any StoreAction]) -> DispatchAnswer {
        if let (reason, index) = proposal.refusal {
            logger.error("actions refused before the log: \(reason)")
            return DispatchAnswer(problem: .actionNotJournaled(reason), isKept: index > 0)
        }
        if let (reason, index) = proposal.rejection {
            return DispatchAnswer(problem: .actionRejected(reason, index: index, of: requested.count), isKept: true)
        }
        if proposal.isUnchanged {
            // Nothing to order and nothing would change: the version this replica applied holds,
            // and is the answer a retry gets (kept with the key, as in one process).
            return .applied(store.version)
        }
        if proposal.actions.isEmpty {
            return .accepted
        }
        return DispatchAnswer(status: 200, body: [], isKept: true)
    }

    /// The outcome a dispatch in one process would have had, for the action counters.
    private func outcome(of proposal: Proposal, version: UInt64?) -> DispatchOutcome {
        if let (reason, index) = proposal.refusal { return .refused(reason: reason, index: index) }
        if let (reason, index) = proposal.rejection { return .rejected(reason: reason, index: index) }
        if let version { return .reduced(version: version) }
        if proposal.isUnchanged { return .unchanged(version: store.version) }
        return .accepted
    }

    /// Appends an action that middleware passed on after its request was answered (asynchronous
    /// middleware), as a group of its own; nobody waits for it.
    private func appendLate(_ action: any StoreAction, to log: any SharedLog) {
        guard let record = codec.record(of: action, version: 0, time: ActionJournalCodec.now()) else {
            logger.error("an action passed on late cannot be logged: \(codec.refusal(of: action) ?? "no wire name")")
            return
        }
        let logger = logger
        log.submit(LogGroup(actions: [LoggedAction(type: record.type, payload: record.payload, time: record.time)])) { result in
            if case .failure(let error) = result {
                logger.error("an action passed on late by middleware was not logged: \(error)")
            }
        }
    }
}
