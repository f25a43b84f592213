import Journal
import Logging
import MicroHTTP
import ReMVVM

extension JournalBackend {
    /// The journal's health first (503 while commits fail, or before start: nothing is
    /// acknowledged that is not durable), then `If-Match` and the plan in one exclusive step;
    /// the answer is sent once the version it names is durable. A keyed request keeps its
    /// answer in the same journal commit as its actions.
    func dispatch(
        key: IdempotencyKey?, ifMatch: String?, plan: @escaping @Sendable (State) -> DispatchPlan, in served: ServedStore<State>
    ) -> Response {
        guard let journal = runtime?.journal else { return Problem.journalUnavailable.response }
        if let failure = journal.failure {
            // A key still gets what it is owed — the kept answer, 409 while its first request's
            // actions wait for a commit, 422 for another request — since that needs no commit.
            if let key {
                if let answered = served.claim(key) { return answered }
                served.idempotencyKeys.release(key)
            }
            journalFailureLog.log(.error, "refusing actions while the journal fails: \(failure)", to: logger)
            return Problem.journalUnavailable.response
        }
        let condition = IfMatch.condition(ifMatch, tags: served.versionTags)
        guard let key else {
            switch served.planAndDispatch(plan, if: condition) {
            case .dispatched(let answer):
                return answerWhenDurable(answer, journal)
            case .instead(let response, let decidedAt):
                // A refusal must not be sent for a state a crash could still undo.
                return respond(response, onceDurable: decidedAt, what: Self.decidedOn(decidedAt), journal)
            }
        }
        return dispatchOnce(if: condition, key: key, plan: plan, in: served, journal)
    }

    /// What the log calls version `version` when a command's refusal was decided on it.
    private static func decidedOn(_ version: UInt64) -> String {
        "version \(version), which a command's answer was decided on,"
    }

    /// Dispatches a request that carries an idempotency key: replays the kept answer of an earlier
    /// one, or plans and dispatches it and keeps the answer in the same journal commit as the
    /// actions. An answer the plan gives instead of actions is not kept: a retry is planned anew.
    private func dispatchOnce(
        if condition: @escaping @Sendable (UInt64) -> Bool,
        key: IdempotencyKey,
        plan: @escaping @Sendable (State) -> DispatchPlan,
        in served: ServedStore<State>,
        _ journal: GroupCommitJournal
    ) -> Response {
        if let answered = served.claim(key) { return answered }
        let pending = PendingResponse()
        let keys = served.idempotencyKeys
        let logger = logger
        store.exclusively { [self] in
            let actions: [any StoreAction]
            switch plan(store.state) {
            case .dispatch(let planned):
                actions = planned
            case .answer(let response):
                keys.release(key)
                respond(response, onceDurable: store.version, what: Self.decidedOn(store.version), to: pending, journal)
                return
            }
            journal.beginGroup()
            let answer = served.dispatch(actions, if: condition)
            guard answer.isKept else {
                journal.endGroup(keeping: nil)
                keys.release(key)
                guard let version = answer.version else { return pending.complete(answer.response()) }
                respond(answer.response(), onceDurable: version, what: "version \(version)", to: pending, journal)
                return
            }
            let kept = answer.kept(for: key, time: ActionJournalCodec.now())
            keys.keep(kept) { result in
                pending.complete(Self.response(answer.response(), once: result, logger: logger, what: "the answer kept for an idempotency key"))
            }
            journal.endGroup(keeping: kept)
        }
        return Response(pending: pending)
    }

    /// The response for `answer`, once the version it names (if any) is durable.
    private func answerWhenDurable(_ answer: DispatchAnswer, _ journal: GroupCommitJournal) -> Response {
        guard let version = answer.version else { return answer.response() }
        return respond(answer.response(), onceDurable: version, what: "version \(version)", journal)
    }

    /// `response` once `version` is durable; 503 if its commit fails (logged, naming `what`).
    private func respond(_ response: Response, onceDurable version: UInt64, what: String, _ journal: GroupCommitJournal) -> Response {
        // A lone request commits on this thread: no hand-over to the journal thread and back. Only
        // while its connection is the only one (``RequestConnections``).
        if requestConnections.isAlone, let result = journal.commitOnCallingThread(through: version) {
            return Self.response(response, once: result.map { _ in () }, logger: logger, what: what)
        }
        let pending = PendingResponse()
        respond(response, onceDurable: version, what: what, to: pending, journal)
        return Response(pending: pending)
    }

    /// Completes `pending` with `response` once `version` is durable (see the method above).
    private func respond(
        _ response: Response, onceDurable version: UInt64, what: String, to pending: PendingResponse, _ journal: GroupCommitJournal
    ) {
        journal.whenDurable(version) { [logger] result in
            pending.complete(Self.response(response, once: result.map { _ in () }, logger: logger, what: what))
        }
    }

    /// `response` if its commit succeeded; 503 (logged) when it failed: nothing acknowledged that
    /// is not durable.
    private static func response(
        _ response: Response, once result: Result<Void, JournalError>, logger: Logger, what: String
    ) -> Response {
        switch result {
        case .success:
            return response
        case .failure(let error):
            journalFailureLog.log(.error, "\(what) is not durable: \(error)", kind: 1, to: logger)
            return Problem.journalCommitFailed.response
        }
    }
}
