import Journal

/// One round of the follower's catch-up over every store that may be behind: what each store has
/// to apply (entries this replica offered) or to read, taken under one lock; the pages applied
/// outside it; and what they changed, recorded under one lock per batch of stores, with one
/// wake-up of the waiters. With 1,000 stores a round touches a store per action, and the locks,
/// copies and waiter scans each store took on its own were a third of the follower's CPU
/// (`docs/benchmarks.md`, 2026-11-28 night).
extension PostgresLogFollower {
    /// One store's share of a round.
    struct RoundWork {
        let store: StoreID
        let generation: UInt64
        /// The last version applied when the round began.
        let applied: UInt64
        let apply: @Sendable ([LogEntry]) throws -> Void
        /// Offered entries that follow `applied` directly: applied without reading.
        let offered: [LogEntry]
        /// The first version offered beyond a gap: read only the versions before it.
        let nextOffered: UInt64?
        /// Whether the log must be read (nothing offered to apply, and the head is further).
        let needsRead: Bool

        /// The most entries to read for this store: a page, or only those missing up to the
        /// offered ones.
        func readLimit(pageSize: Int) -> Int {
            min(pageSize, nextOffered.map { Int($0 - applied - 1) } ?? pageSize)
        }
    }

    /// What a round did to one store, recorded with ``record(_:)``.
    struct RoundResult {
        let store: StoreID
        let generation: UInt64
        /// The last version applied by the round (nil: none).
        var last: UInt64?
        /// The version to read up to from now on, when the round changed it (`.some(nil)`: caught
        /// up with what was read; `.some(.max)`: read whatever is there).
        var readUpTo: UInt64??
        /// Whether the offered entries turned out unusable (the log is read instead).
        var dropOffered = false
    }

    /// Takes the round's work of every store that may be behind, in one lock: the offered
    /// entries that follow each store's applied version directly, or what to read.
    func takeRound() -> [RoundWork] {
        state.withLock { state in
            defer { state.mayBeBehind = [] }
            var round: [RoundWork] = []
            round.reserveCapacity(state.mayBeBehind.count)
            for store in state.mayBeBehind {
                guard let followed = state.stores[store], let taken = followed.takeOffered(pageSize: pageSize) else { continue }
                round.append(RoundWork(
                    store: store, generation: followed.generation, applied: followed.applied, apply: followed.apply,
                    offered: taken.entries, nextOffered: taken.nextOffered,
                    needsRead: taken.entries.isEmpty && (taken.nextOffered != nil || followed.readUpTo.map { followed.applied < $0 } == true)
                ))
            }
            return round
        }
    }

    /// The work of `works` whose store is still followed as it was when the round took it (not
    /// unfollowed, nor followed anew, meanwhile), in one lock.
    func stillFollowed(_ works: [RoundWork]) -> [RoundWork] {
        state.withLock { state in works.filter { state.stores[$0.store]?.generation == $0.generation } }
    }

    /// Applies `page` through the store's `apply`; a throw stops the store with the reason.
    func applyPage(_ page: [LogEntry], of work: RoundWork) -> RoundResult {
        var result = RoundResult(store: work.store, generation: work.generation)
        guard let first = page.first, let last = page.last else { return result }
        do {
            try work.apply(page)
            result.last = last.record.version
        } catch {
            stop(work.store, generation: work.generation, "applying version \(first.record.version)…\(last.record.version) failed: \(error)")
        }
        return result
    }

    /// Applies a page read from the log. Without offers beyond it: a short page reached the head
    /// as it was then (wait for the doorbell rather than ask again for nothing: under load that
    /// empty read doubled the queries). With offers from `nextOffered` on: the page is what other
    /// replicas committed before them (all committed already: the store's head lock orders
    /// commits), so a page that does not lead up to them means the offer cannot be trusted; every
    /// offer is dropped and the log read instead.
    func applyRead(_ page: [LogEntry], of work: RoundWork) -> RoundResult {
        var page = page
        var readUpTo: UInt64??
        var dropOffered = false
        if let nextOffered = work.nextOffered {
            page.removeAll { $0.record.version >= nextOffered }
            if page.count < work.readLimit(pageSize: pageSize) {
                dropOffered = true
                readUpTo = .some(.max)
            }
        } else if page.count < pageSize {
            readUpTo = .some(nil)
        }
        var result = applyPage(page, of: work)
        result.readUpTo = readUpTo
        result.dropOffered = dropOffered
        return result
    }

    /// Records what the round did, in one lock (for stores still followed as they were), then
    /// answers the waiters once.
    func record(_ results: [RoundResult]) {
        guard !results.isEmpty else { return }
        state.withLock { state in
            for result in results {
                guard let followed = state.stores[result.store], followed.generation == result.generation else { continue }
                followed.take(result)
            }
        }
        state.notifyAll()
        answerWaiters()
    }

    /// Marks the stores of the round that still have something to read or apply (a full page,
    /// offers beyond a page) to be looked at again.
    func requeueBehind(_ round: [RoundWork]) {
        state.withLock { state in
            for work in round where state.stores[work.store]?.isBehind == true { state.mayBeBehind.insert(work.store) }
        }
    }
}

extension FollowedStore {
    /// Takes in what a round did to the store.
    func take(_ result: PostgresLogFollower.RoundResult) {
        if let readUpTo = result.readUpTo { self.readUpTo = readUpTo }
        if result.dropOffered { offered.removeAll() }
        if let last = result.last {
            applied = last
            knownHead = max(knownHead, last)
        }
    }

    /// Takes the offered entries that follow `applied` directly (at most `pageSize`, dropping
    /// those already applied), and returns the first version offered beyond a gap, if any; nil
    /// when the store has nothing to read or apply.
    func takeOffered(pageSize: Int) -> (entries: [LogEntry], nextOffered: UInt64?)? {
        guard isBehind else { return nil }
        while let first = offered.first, first.record.version <= applied {
            offered.removeFirst()
        }
        guard let first = offered.first else { return ([], nil) }
        guard first.record.version == applied + 1 else { return ([], first.record.version) }
        var entries: [LogEntry] = []
        var expected = applied + 1
        while let next = offered.first, next.record.version == expected, entries.count < pageSize {
            entries.append(offered.removeFirst())
            expected += 1
        }
        return (entries, nil)
    }
}
