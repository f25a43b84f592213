import ReMVVM

/// A hub with a history behind it (a journal, a replica's log) takes no publication while nobody
/// listens (``EventHub/demand``): the commit thread's release of a store nobody follows is one
/// atomic load, instead of the hub's lock, its ring and the versions it drops — the first touch of
/// each per store, over many stores (`docs/benchmarks.md`, 2026-12-01). Everything that reads the
/// inbox's versions (a new stream, a resume's verdict, a replay's hand-over, the view-model
/// streams' look-up, the statistics) first catches the hub up from its source's newest state.
extension EventHub {
    /// Runs `body` under the inbox lock with the inbox caught up: after versions skipped while
    /// nobody listened, the newest version is the source's, set aside for the lane to start from,
    /// and the ring starts again at it — the journal serves the older versions.
    ///
    /// Publications are wanted while `body` runs, and after it while a stream listens or is on
    /// its way. None is missed: the source sets its newest state before its handler asks
    /// ``demand``, and the state is read here after ``demand`` was set; so a version the handler
    /// skipped is no newer than the one caught up to, and a later one comes through
    /// ``publish(_:)``, which drops the versions the hub caught up to already.
    func withInboxCaughtUp<Result>(_ body: (inout EventHubInbox) -> Result) -> Result {
        var joinsBudget = false
        let result = inbox.withLock { inbox in
            guard let newestOfSource = inbox.newestOfSource, !demand.isWanted else { return body(&inbox) }
            demand.set(true)
            joinsBudget = catchUp(&inbox, to: newestOfSource())
            defer {
                if !inbox.publications.listening { demand.set(false) }
            }
            return body(&inbox)
        }
        if joinsBudget { joinRingBudget() }
        return result
    }

    /// The lane has no stream left and none on its way: publications go aside again. With a
    /// history behind the hub they are still taken for ``idleGrace`` (into the ring: a client
    /// reconnecting after a blip resumes from memory), and no longer after it
    /// (``endIdleGraceIfPast(_:_:)``). Under the inbox lock.
    func stopListeningIfIdle(_ inbox: inout EventHubInbox) {
        guard inbox.newestOfSource != nil else { return inbox.publications.stopListeningIfIdle() }
        guard idleGrace > .zero else { return inbox.publications.stopListeningIfIdle(unsetting: demand) }
        inbox.publications.stopListeningIfIdle()
        if !inbox.publications.listening {
            inbox.idleGraceEnds = .now + idleGrace
        }
    }

    /// At a publication while the hub is in its grace (`graceEnds`): a stream came meanwhile —
    /// the grace is over, the demand stays; or the grace has passed — no publication is taken
    /// from here on. One clock read per publication, only in the grace. Under the inbox lock.
    func endIdleGraceIfPast(_ graceEnds: ContinuousClock.Instant, _ inbox: inout EventHubInbox) {
        if inbox.publications.listening {
            inbox.idleGraceEnds = nil
        } else if ContinuousClock.now >= graceEnds {
            inbox.idleGraceEnds = nil
            demand.set(false)
        }
    }

    /// Makes `newest`, the source's newest state, the inbox's newest version when the hub skipped
    /// versions before it (they count as set aside), and the ring's only one: a stream resuming
    /// one version before it, or a view-model stream resuming at it, is served from memory.
    /// Returns whether the ring joins the shared budget (the caller does it, outside the lock).
    private func catchUp(_ inbox: inout EventHubInbox, to newest: AnyObject) -> Bool {
        // A source's newest state past the versions the hub saw was made by a reduce, hence is a
        // publication (a restore happens before the hub starts).
        guard let publication = newest as? StatePublication<State>, publication.version > inbox.newestVersion else {
            return false
        }
        inbox.publications.countSkipped(Int(publication.version - inbox.newestVersion))
        inbox.newestVersion = publication.version
        inbox.publications.replaceSetAside(with: publication)
        inbox.history.removeAll()
        guard historyLimit(joining: !inbox.keepsVersions) > 0 else { return false }
        inbox.history.append(ErasedPublication(publication))
        defer { inbox.keepsVersions = true }
        return !inbox.keepsVersions
    }
}
