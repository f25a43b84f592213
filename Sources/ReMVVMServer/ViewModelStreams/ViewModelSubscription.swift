import JSONPatch
import MicroHTTP

/// One view model a stream follows: a registered name and the key its factory gets. Subjects
/// are the same when their name and key have the same code points: `?key=%C3%A9` and
/// `?key=e%CC%81` are two keys, though Swift's `==` finds the strings equal.
struct ViewModelSubject: Hashable, Sendable {
    /// The registered name (`/viewmodels/<name>`).
    let name: String
    /// The `?key=` the factory gets; nil without one.
    let key: String?

    static func == (lhs: ViewModelSubject, rhs: ViewModelSubject) -> Bool {
        CodePointString(lhs.name) == CodePointString(rhs.name) && lhs.key.map(CodePointString.init) == rhs.key.map(CodePointString.init)
    }

    func hash(into hasher: inout Hasher) {
        CodePointString(name).hash(into: &hasher)
        key.map(CodePointString.init).hash(into: &hasher)
    }
}

/// What a client already has of a view model when its stream resumes (`Last-Event-ID: N`):
/// the view model the factory made at version N.
enum ViewModelBaseline: Sendable {
    /// The view model at N.
    case value(ViewModelValue)
    /// The factory made none at N.
    case unavailable
    /// The state at N is no longer kept: the client gets the current view model.
    case unknown
}

/// A new view-model stream and how it begins.
struct ViewModelSubscription: Sendable {
    /// How the first events are chosen.
    enum Start: Sendable {
        /// Every subject's current view model (no `Last-Event-ID`).
        case current
        /// Every subject's current view model, the first event marked `"reset": true`: the
        /// client's last id is not a version this store can serve (not a number of this
        /// instance, or newer than its newest version).
        case reset
        /// The client has every subject as it was at `version` (`baselines`, one per subject):
        /// only the ones that changed since are sent, then every later change.
        case after(version: UInt64, baselines: [ViewModelSubject: ViewModelBaseline])
    }

    let stream: EventStream
    /// The view models, in the order asked for (the order of first events).
    let subjects: [ViewModelSubject]
    let start: Start
}
