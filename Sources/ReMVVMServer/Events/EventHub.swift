import Foundation
import Logging
import MicroHTTP
import ReMVVM
import Synchronization

/// Fans every state change out to the `GET /events` subscribers, in version order.
///
/// The store's publication hook only appends to an inbox, so dispatching never waits for subscribers.
/// One publisher thread takes the inbox in order — publications, new subscribers, departures — so a
/// subscriber's first event (the newest state) and the ones after it have no gap and no repeat.
/// Each version is encoded once whatever the number of subscribers, and versions that queue up while
/// the thread works leave as one buffer, i.e. one write per subscriber.
final class EventHub<State: StoreState & Encodable>: @unchecked Sendable {
    // @unchecked: `inbox`, `stopped` and `thread` are guarded by `condition`; `subscribers` and
    // `latestFrame` are touched only by the publisher thread.
    private enum Item {
        case publication(StatePublication<State>)
        case subscribe(EventStream)
        case unsubscribe(ObjectIdentifier)
    }

    private let store: Store<State>
    private let actionEncoder: ActionWireEncoder
    private let stateCache: EncodedStateCache<State>
    private let backlogBytes: Int
    private let logger: Logger

    private let condition = NSCondition()
    private var inbox: [Item] = []
    private var stopped = false
    private var started = false
    private let finished = DispatchSemaphore(value: 0)

    private var subscribers: [ObjectIdentifier: EventStream] = [:]
    private var latestFrame: [UInt8] = []
    private let subscriberTotal = Atomic<Int>(0)

    init(
        store: Store<State>,
        actions: ActionRegistry,
        stateCache: EncodedStateCache<State>,
        backlogBytes: Int,
        logger: Logger
    ) {
        self.store = store
        self.actionEncoder = ActionWireEncoder(registry: actions)
        self.stateCache = stateCache
        self.backlogBytes = backlogBytes
        self.logger = logger
    }

    /// The number of connected subscribers.
    var subscriberCount: Int {
        subscriberTotal.load(ordering: .relaxed)
    }

    /// Hooks into the store and starts the publisher thread.
    func start() throws {
        let start = store.addPublicationHandler { [weak self] publication in
            self?.post(.publication(publication))
        }
        latestFrame = EventFrame.state(version: start.version, action: nil, state: try stateCache.json(for: start))
        condition.withLock { started = true }
        let thread = Thread { [self] in run() }
        thread.name = "remvvm-events"
        thread.start()
    }

    /// A new subscriber's stream; its first event is the newest state, then every later version.
    func subscribe() -> EventStream {
        let stream = EventStream(maxPendingBytes: backlogBytes)
        let id = ObjectIdentifier(stream)
        let logger = logger
        let backlogBytes = backlogBytes
        stream.onTermination { [weak self] reason in
            if reason == .overflow {
                logger.warning("event subscriber disconnected: it fell more than \(backlogBytes) bytes behind")
            } else {
                logger.debug("event subscriber ended", metadata: ["reason": "\(reason)"])
            }
            self?.post(.unsubscribe(id))
        }
        if !post(.subscribe(stream)) {
            stream.close()
        }
        return stream
    }

    /// Delivers what is queued, ends every stream, and stops the thread.
    func stop() {
        let wasRunning = condition.withLock {
            let wasRunning = started && !stopped
            stopped = true
            condition.signal()
            return wasRunning
        }
        if wasRunning {
            finished.wait()
        }
    }

    @discardableResult
    private func post(_ item: Item) -> Bool {
        condition.withLock {
            guard !stopped else { return false }
            inbox.append(item)
            if inbox.count == 1 { condition.signal() }
            return true
        }
    }

    private func run() {
        var items: [Item] = []
        while true {
            let stopping = condition.withLock {
                while inbox.isEmpty && !stopped {
                    condition.wait()
                }
                swap(&items, &inbox)
                return stopped
            }
            process(items)
            items.removeAll(keepingCapacity: true)
            if stopping {
                break
            }
        }
        for stream in subscribers.values {
            stream.close()
        }
        subscribers.removeAll()
        subscriberTotal.store(0, ordering: .relaxed)
        finished.signal()
    }

    private func process(_ items: [Item]) {
        var pending: [UInt8] = []
        for item in items {
            switch item {
            case .publication(let publication):
                guard let frame = frame(for: publication) else { continue }
                latestFrame = frame
                pending += frame
            case .subscribe(let stream):
                broadcast(&pending)
                if stream.send(latestFrame) {
                    subscribers[ObjectIdentifier(stream)] = stream
                }
            case .unsubscribe(let id):
                subscribers[id] = nil
            }
        }
        broadcast(&pending)
        subscriberTotal.store(subscribers.count, ordering: .relaxed)
    }

    private func broadcast(_ pending: inout [UInt8]) {
        guard !pending.isEmpty else { return }
        for stream in subscribers.values {
            stream.send(pending)
        }
        pending = []
    }

    private func frame(for publication: StatePublication<State>) -> [UInt8]? {
        do {
            let state = try JSONCoding.encode(publication.state)
            stateCache.remember(state, version: publication.version)
            return EventFrame.state(
                version: publication.version,
                action: actionEncoder.encode(publication.action),
                state: state
            )
        } catch {
            logger.error("state version \(publication.version) cannot be encoded: \(error)")
            return nil
        }
    }
}
