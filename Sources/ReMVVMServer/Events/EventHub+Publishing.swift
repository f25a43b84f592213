import MicroHTTP
import ReMVVM
import Synchronization

/// The publisher thread: takes the inbox in order, starts new streams, encodes each version once and
/// sends every channel its pending events.
extension EventHub {
    func run() {
        var items: [Item] = []
        while true {
            let (setAside, drop, stopping) = inbox.withLock(waitingUntil: \.hasWork) { inbox in
                swap(&items, &inbox.items)
                statistics.versionsSetAside = inbox.versionsSetAside
                inbox.pendingPublications = 0
                inbox.pendingSubscribes = 0
                defer {
                    inbox.aside = nil
                    inbox.dropSubscribers = false
                }
                return (inbox.aside, inbox.dropSubscribers, inbox.stopped)
            }
            if drop {
                disconnectLaggingSubscribers()
            }
            if let setAside {
                remember(setAside)
            }
            process(items)
            items.removeAll(keepingCapacity: true)
            updateListening()
            if stopping {
                break
            }
        }
        fanOut.stop()
        for stream in states.removeAll() + patches.removeAll() {
            stream.close()
        }
        updateSubscriberTotal(0)
        sharedStatistics.withLock { $0 = statistics }
        logger.notice("event publishing stopped: \(statistics)")
        inbox.withLock { $0.finished = true }
        inbox.notifyAll()
    }

    private func process(_ items: [Item]) {
        for item in items {
            switch item {
            case .publication(let publication):
                statistics.versionsProcessed += 1
                if !hasListeners {
                    remember(publication)
                } else if let encoded = encode(publication) {
                    latest = Latest(version: publication.version, encoded: encoded)
                    if states.hasListeners {
                        states.pending += encoded.frame
                    }
                    if patches.hasListeners {
                        patches.pending += patchFrames.frame(
                            for: encoded, id: versionTags.tag(encoded.version), statistics: &statistics, logger: logger
                        )
                    } else {
                        patchFrames.forget()
                    }
                    if states.pending.count >= broadcastLimitBytes || patches.pending.count >= broadcastLimitBytes {
                        broadcast()
                    }
                }
            case .subscribe(let stream, let resume, let format):
                broadcast()
                if case .replay(let publications) = resume, publications.isEmpty {
                    startResumedAtNewest(stream, format: format)
                } else if format == .jsonPatch {
                    startPatchStream(stream, resume)
                } else if start(stream, resume) {
                    states.insert(stream)
                }
            case .unsubscribe(let id):
                states.remove(id)
                patches.remove(id)
            }
        }
        broadcast()
        if !patches.hasListeners {
            patchFrames.forget()
        }
        // Before the count: whoever waits for subscribers then reads statistics that include
        // what their first events cost.
        sharedStatistics.withLock { $0 = statistics }
        updateSubscriberTotal(states.count + patches.count)
    }

    /// Whether any stream wants the next versions: subscribers, and streams awaiting their first.
    private var hasListeners: Bool {
        states.hasListeners || patches.hasListeners
    }

    /// A stream resumed at the newest version: a comment line alone (like the heartbeat), so that
    /// the response head goes out now (libmicrohttpd sends it with the first body bytes); it joins
    /// its channel at the next broadcast. A patch stream needs the newest tree for that one.
    private func startResumedAtNewest(_ stream: EventStream, format: EventFormat) {
        if format == .jsonPatch {
            guard let encoded = latestEncoded(), preparePatches(from: encoded) else {
                stream.close()
                return
            }
        }
        guard stream.send(Self.resumedComment) else { return }
        switch format {
        case .states: states.awaitFirstEvent(stream)
        case .jsonPatch: patches.awaitFirstEvent(stream)
        }
    }

    /// Sends a new patch stream the full newest state (marked as a reset for ``Resume/reset``) and
    /// takes it in, with the newest tree kept for the next version's patch.
    private func startPatchStream(_ stream: EventStream, _ resume: Resume) {
        guard let encoded = latestEncoded(), preparePatches(from: encoded) else {
            stream.close()  // the newest state cannot be encoded or parsed (logged)
            return
        }
        var frame = encoded.frame
        if case .reset = resume {
            frame = EventFrame.markedAsReset(frame, version: encoded.version, id: versionTags.tag(encoded.version))
        }
        if stream.send(retryField, frame) {
            patches.insert(stream)
        }
    }

    /// Keeps the tree of `encoded` for the next patch; false (logged) if its JSON does not parse.
    private func preparePatches(from encoded: EncodedVersion) -> Bool {
        do {
            try patchFrames.prepare(encoded, statistics: &statistics)
            return true
        } catch {
            logger.error("state version \(encoded.version) cannot be parsed for a patch stream: \(error)")
            return false
        }
    }

    /// The first bytes of a stream resumed at the newest version.
    private static var resumedComment: [UInt8] { Array(": resumed\n".utf8) }

    /// Sends a new stream its first events; false if it cannot be served.
    /// The frames of `publications`, counted as replayed; nil (and `stream` closed) when one
    /// cannot be encoded.
    private func replayFrames(_ publications: [StatePublication<State>], to stream: EventStream) -> [UInt8]? {
        var frames: [UInt8] = []
        for publication in publications {
            guard let encoded = encode(publication) else {
                stream.close()
                return nil
            }
            frames += encoded.frame
        }
        statistics.replayedVersions += publications.count
        return frames
    }

    private func start(_ stream: EventStream, _ resume: Resume) -> Bool {
        switch resume {
        case .current, .reset, .resetAfterReplay:
            guard var frame = latestEncoded()?.frame else {
                stream.close()  // the newest state cannot be encoded (logged): nothing to stream
                return false
            }
            if case .current = resume {} else {
                frame = EventFrame.markedAsReset(frame, version: latest.version, id: versionTags.tag(latest.version))
            }
            if case .resetAfterReplay(retrySent: true) = resume {
                return stream.send(frame)
            }
            // `retry:` in the first event's block, without copying the frame.
            return stream.send(retryField, frame)
        case .replay(let publications):
            guard let frames = replayFrames(publications, to: stream) else { return false }
            return stream.send(retryField, frames)
        case .handover(let publications):
            guard let frames = replayFrames(publications, to: stream) else { return false }
            // A stream that ended while it was replayed is not taken in (its departure may
            // have been processed already).
            return frames.isEmpty ? !stream.isClosed : stream.send(frames)
        }
    }

    /// Stops sending to subscribers that can no longer be caught up (see the type's documentation).
    private func disconnectLaggingSubscribers() {
        guard hasListeners else { return }
        logger.warning(
            "event publishing fell more than \(lagBudgetBytes) bytes behind the store; disconnecting \(states.count + patches.count) subscribers so they restart from the current state"
        )
        for stream in states.removeAll() + patches.removeAll() {
            stream.close()
        }
        patchFrames.forget()
    }

    /// With no subscriber left and none arriving, publications go aside again.
    private func updateListening() {
        guard !hasListeners else { return }
        inbox.withLock { inbox in
            if inbox.pendingSubscribes == 0 && inbox.items.isEmpty {
                inbox.listening = false
            }
        }
    }

    /// Keeps `publication` as the newest state without encoding it (nobody needs it yet).
    private func remember(_ publication: StatePublication<State>) {
        guard publication.version > latest.version else { return }
        latest = Latest(version: publication.version, publication: publication)
    }

    /// The newest state's encoding, made now if nobody needed it before.
    private func latestEncoded() -> EncodedVersion? {
        if let encoded = latest.encoded {
            return encoded
        }
        guard let publication = latest.publication, let encoded = encode(publication) else { return nil }
        latest.encoded = encoded
        latest.publication = nil
        return encoded
    }

    /// Sends each channel its pending events. The statistics are shared first, so that a client
    /// that has an event reads counts that include its version, and again after the sends.
    private func broadcast() {
        guard !states.pending.isEmpty || !patches.pending.isEmpty else { return }
        sharedStatistics.withLock { $0 = statistics }
        for deliveries in [
            states.broadcast(through: fanOut, retryField: retryField),
            patches.broadcast(through: fanOut, retryField: retryField),
        ] {
            guard let deliveries else { continue }
            statistics.broadcasts += 1
            statistics.deliveries += deliveries
        }
        sharedStatistics.withLock { $0 = statistics }
    }

    private func encode(_ publication: StatePublication<State>) -> EncodedVersion? {
        do {
            let encoded = try frames.encode(publication)
            statistics.statesEncoded += 1
            stateCache.remember(encoded.state, version: publication.version)
            lastFrameBytes.store(encoded.frame.count, ordering: .relaxed)
            return encoded
        } catch {
            logger.error("state version \(publication.version) cannot be encoded: \(error)")
            return nil
        }
    }
}
