import Journal
import ConcurrencyKit

/// The follower's thread: connect, read heads and entries until every followed store is caught
/// up, wait for the doorbell, again.
extension PostgresLogFollower {
    /// The most stores named in one query (heads, entries).
    private static let storesPerQuery = 500

    func run() {
        var log: PostgresLog?
        var listener: PostgresLogListener?
        var pause = Duration.milliseconds(50)
        defer {
            log?.close()
            listener?.close()
        }
        while !isStopping {
            do {
                if log == nil {
                    let opened = try PostgresLog(conninfo: conninfo)
                    log = opened
                    try opened.planOnceThroughIndexes()
                    // Every (re)connect: each store's head (what the lag is measured against
                    // while catching up) and whether it is still the store this replica follows.
                    restartEveryStore()
                }
                if listener == nil { listener = try PostgresLogListener(conninfo: conninfo) }
                guard let log, let listener else { continue }
                try catchUp(log)
                setConnection(.following)
                pause = .milliseconds(50)
                try waitForDoorbell(listener)
            } catch where error.code == .unavailable || error.code == .queryFailed {
                // queryFailed too: a server shutting down answers some statements with an error
                // before it closes the connection. Start over with fresh connections.
                log?.close()
                listener?.close()
                log = nil
                listener = nil
                setConnection(.unavailable(error.message))
                answerWaiters()
                _ = state.wait(timeout: pause) { $0.stopping }
                pause = min(pause * 2, .seconds(2))
            } catch {
                setConnection(.stopped(error.message))
                return
            }
        }
        setConnection(.stopped(nil))
    }

    /// Marks every store to be read from its head row again, verified again, and caught up again.
    private func restartEveryStore() {
        state.withLock { state in
            for store in state.stores.keys {
                state.stores[store]?.verified = nil
                state.stores[store]?.caughtUp = false
                state.stores[store]?.readUpTo = .max
            }
            state.headsToRead = Set(state.stores.keys)
        }
    }

    /// Sets the connection's state; when it changed, tells every store whose status changed.
    private func setConnection(_ status: Status) {
        let changed = state.withLock { state -> Bool in
            defer { state.connection = status }
            return state.connection != status
        }
        if changed { reportStatuses(of: nil) }
    }

    /// Reads heads and entries until every followed store is caught up (or stopped).
    private func catchUp(_ log: PostgresLog) throws(PostgresLogError) {
        var touched: Set<StoreID> = []
        defer { markCaughtUp(touched) }
        while !isStopping {
            let heads = state.withLock { state -> [StoreID] in
                defer { state.headsToRead = [] }
                return state.headsToRead.filter { state.stores[$0] != nil }
            }
            for chunk in heads.chunked(Self.storesPerQuery) {
                let found = try log.heads(of: Array(chunk))
                for store in chunk { check(store, found[store]) }
            }
            let round = takeRound()
            touched.formUnion(heads)
            touched.formUnion(round.lazy.map(\.store))
            defer { requeueBehind(round) }
            guard !round.isEmpty || !heads.isEmpty else { break }
            // Applied then recorded with nothing that throws in between: a page applied and not
            // recorded would be applied twice.
            let offered = stillFollowed(round.filter { !$0.offered.isEmpty })
            record(offered.map { applyPage($0.offered, of: $0) })
            for chunk in round.filter(\.needsRead).chunked(Self.storesPerQuery) {
                // Before offered entries, only the versions missing up to them (the offered ones
                // are not read back).
                let pages = try log.pages(after: Dictionary(uniqueKeysWithValues: chunk.map { work in
                    (work.store, (version: work.applied, limit: work.readLimit(pageSize: pageSize)))
                }))
                // A store whose versions have a gap (removed by retention) stops, saying which
                // version is missing, as a page that cannot be applied does; the others go on.
                var read: [(work: RoundWork, page: [LogEntry])] = []
                for work in stillFollowed(Array(chunk)) {
                    switch pages[work.store] {
                    case .failure(let error): stop(work.store, generation: work.generation, error.message)
                    case .success(let page): read.append((work, page))
                    case nil: read.append((work, []))
                    }
                }
                record(read.map { applyRead($0.page, of: $0.work) })
            }
        }
    }

    /// Checks `store`'s head row as read: gone → the store stops (deleted); `verify` hears it the
    /// first time since a connect (and may stop it: the log replaced); another incarnation than
    /// the one first accepted (also across reconnects) → it stops (deleted and created again);
    /// otherwise the head is what to read up to.
    private func check(_ store: StoreID, _ found: (head: UInt64, incarnation: String)?) {
        // What is needed of the store, read under the lock (the store is changed under it).
        let seen = state.withLock { state -> (generation: UInt64, verified: String?, accepted: String?, verify: @Sendable (String, UInt64) throws -> Void)? in
            guard let followed = state.stores[store], followed.stopReason == nil else { return nil }
            return (followed.generation, followed.verified, followed.incarnation, followed.verify)
        }
        guard let seen else { return }
        guard let found else {
            return stop(store, generation: seen.generation, "the store \(store) was deleted from the shared log")
        }
        if seen.verified == nil {
            do {
                try seen.verify(found.incarnation, found.head)
            } catch {
                return stop(store, generation: seen.generation, "\(error)")
            }
        }
        if let accepted = seen.accepted, accepted != found.incarnation {
            return stop(store, generation: seen.generation, "the store \(store) was deleted from the shared log and created again")
        }
        state.withLock { state in
            guard let current = state.stores[store], current.generation == seen.generation else { return }
            current.verified = found.incarnation
            current.incarnation = found.incarnation
            current.knownHead = max(current.knownHead, found.head)
            if found.head > current.applied { current.readUpTo = max(current.readUpTo ?? 0, found.head) }
            state.mayBeBehind.insert(store)
        }
    }

    /// Stops following `store` for good, saying why (unless it is followed anew meanwhile).
    func stop(_ store: StoreID, generation: UInt64, _ reason: String) {
        state.withLock { state in
            guard state.stores[store]?.generation == generation else { return }
            state.stores[store]?.stopReason = reason
            state.stores[store]?.offered.removeAll()
        }
        state.notifyAll()
        answerWaiters()
        reportStatuses(of: [store])
    }

    /// Marks the stores of `stores` with nothing left to read as caught up, and tells those that
    /// changed.
    private func markCaughtUp(_ stores: Set<StoreID>) {
        let changed = state.withLock { state -> [StoreID] in
            var changed: [StoreID] = []
            for store in stores {
                guard let followed = state.stores[store], !followed.caughtUp, followed.verified != nil, !followed.isBehind else { continue }
                state.stores[store]?.caughtUp = true
                changed.append(store)
            }
            return changed
        }
        if !changed.isEmpty { reportStatuses(of: changed) }
    }

    /// Waits for the doorbell, an offer, a newly followed store or the poll interval, in slices
    /// short enough for ``stop()`` to be heard within 200 ms. A doorbell that names only stores
    /// not followed, or heads already applied (this replica's own appends, offered), goes on
    /// waiting; at the poll interval, every followed store's head is read.
    private func waitForDoorbell(_ listener: PostgresLogListener) throws(PostgresLogError) {
        let deadline = ContinuousClock.now + pollInterval
        while !isStopping {
            // Checked on the state, not only through the eventfd: a wait that drains the eventfd
            // and a doorbell together reports the doorbell.
            if state.withLock({ $0.hasWork }) { return }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                state.withLock { $0.headsToRead = Set($0.stores.keys) }
                return
            }
            switch try listener.wait(upTo: min(remaining, .milliseconds(200)), wakeBell: wakeBell) {
            case .rang(let announced):
                if absorb(announced) { return }
            case .reconnected:
                state.withLock { $0.headsToRead = Set($0.stores.keys) }
                return
            case .woken:
                return
            case .timedOut:
                answerWaiters()
            }
        }
    }

    /// Takes in what a doorbell announced; true when a followed store has something to read.
    private func absorb(_ announced: PostgresLogDoorbell) -> Bool {
        state.withLock { state in
            if announced.everything {
                state.headsToRead = Set(state.stores.keys)
                return true
            }
            var relevant = false
            // The rows rung with the heads: offered like this replica's own, and applied without
            // reading them back when they follow what the store applied — if they are of the
            // incarnation followed. Rows of another (the store deleted and created again, before
            // or after the rows), or rung before the store's head row was first read, are left
            // to its head row, read again: it stops the store, or tells what to read.
            for (store, entries) in announced.entries {
                guard let followed = state.stores[store], followed.stopReason == nil else { continue }
                guard store == .default || PostgresLogDoorbell.token(announced.incarnations[store], names: followed.incarnation) else {
                    state.headsToRead.insert(store)
                    relevant = true
                    continue
                }
                guard let last = entries.last?.record.version, last > followed.applied else { continue }
                followed.offer(entries, last: last, keeping: PostgresLogFollower.offeredLimit)
                state.mayBeBehind.insert(store)
                relevant = true
            }
            for store in announced.changed where state.stores[store] != nil {
                state.headsToRead.insert(store)
                relevant = true
            }
            for (store, head) in announced.heads where state.stores[store]?.announce(head) == true {
                state.mayBeBehind.insert(store)
                relevant = true
            }
            return relevant
        }
    }
}

extension Array {
    /// The elements in consecutive slices of at most `size`.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
