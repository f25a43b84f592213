import MicroHTTP
import ReMVVM
import Synchronization

/// How many view models the streams made and encoded: counted as it happens (on the hub's thread)
/// and read from any thread, so a reader that has seen an event also sees the work behind it.
final class ViewModelWork: Sendable {
    let made = Atomic<Int>(0)
    let encoded = Atomic<Int>(0)
}

/// One (name, key) that streams follow, on the view-model hub's thread: the view model the newest
/// state made, its event, and the streams that follow it.
///
/// A new state is turned into a view model once for the group, whatever the number of its
/// streams; the result is compared with the previous one (`==` for `Equatable` view models, else
/// their JSON), and only a change is encoded and becomes an event.
final class ViewModelGroup<State: StoreState> {
    let subject: ViewModelSubject
    private let make: ViewModelRegistry<State>.Make
    private let versionTags: VersionTags

    /// The view model of the newest state seen; nil when the factory made none.
    private(set) var current: ViewModelValue?
    /// `current` as JSON, once encoded.
    private var json: [UInt8]?
    /// The event for `current` at `version`, once built (streams that join get it).
    private var frame: (version: UInt64, bytes: [UInt8])?
    /// The newest version seen: its state made `current`, or a view model equal to it.
    private(set) var version: UInt64
    /// The version at which `current` was made and differed from the view model before it; nil
    /// when unknown (it already held when the group was made).
    private(set) var changedAt: UInt64?
    /// The streams following this group.
    var streams: Set<ObjectIdentifier> = []

    private let work: ViewModelWork

    /// Makes the group's first view model from `snapshot`.
    init(
        subject: ViewModelSubject,
        make: @escaping ViewModelRegistry<State>.Make,
        snapshot: StoreSnapshot<State>,
        versionTags: VersionTags,
        work: ViewModelWork
    ) {
        self.subject = subject
        self.make = make
        self.versionTags = versionTags
        self.work = work
        version = snapshot.version
        current = make(snapshot.state, subject.key)
        work.made.add(1, ordering: .relaxed)
    }

    /// Makes the view model of `state` (version `version`); returns its event when it differs from
    /// the current one (it becomes the current one), nil when unchanged. Throws when a view model
    /// cannot be encoded.
    func update(state: State, version: UInt64) throws -> [UInt8]? {
        let new = make(state, subject.key)
        work.made.add(1, ordering: .relaxed)
        self.version = version
        switch (current, new) {
        case (nil, nil):
            return nil
        case (let old?, let new?):
            if let equal = old.isEqual(to: new) {
                if equal { return nil }
                json = nil
            } else {
                let oldJSON = try currentJSON()
                let newJSON = try new.json()
                work.encoded.add(1, ordering: .relaxed)
                if newJSON == oldJSON { return nil }
                json = newJSON
            }
        default:
            json = nil
        }
        current = new
        changedAt = version
        return try currentFrame()
    }

    /// The event for the current view model at the newest version seen (built at most once per
    /// version, and only when a stream needs it).
    func currentFrame() throws -> [UInt8] {
        if let frame, frame.version == version {
            return frame.bytes
        }
        let id = versionTags.tag(version)
        let built: [UInt8]
        if current != nil {
            built = ViewModelFrame.viewModel(try currentJSON(), version: version, id: id, name: subject.name, key: subject.key)
        } else {
            built = ViewModelFrame.unavailable(version: version, id: id, name: subject.name, key: subject.key)
        }
        frame = (version, built)
        return built
    }

    /// Whether a client holding `baseline` lacks the current view model.
    func differs(from baseline: ViewModelBaseline) throws -> Bool {
        switch (baseline, current) {
        case (.unknown, _):
            return true
        case (.unavailable, nil):
            return false
        case (.unavailable, _?), (.value, nil):
            return true
        case (.value(let seen), let current?):
            if let equal = seen.isEqual(to: current) {
                return !equal
            }
            let seenJSON = try seen.json()
            work.encoded.add(1, ordering: .relaxed)
            return try seenJSON != currentJSON()
        }
    }

    private func currentJSON() throws -> [UInt8] {
        if let json {
            return json
        }
        guard let current else { return [] }
        let encodedJSON = try current.json()
        work.encoded.add(1, ordering: .relaxed)
        json = encodedJSON
        return encodedJSON
    }
}
