import ConcurrencyKit

/// One closure per root reducer type, shared by every store built with that type: a closure made
/// in each store's initializer carries a context of that store's own (the reducer's metatype and
/// conformance), one more cold object a reduce reads when many stores are touched in turn.
enum SharedReducers {
    /// The closure of a reducer type, boxed so that it comes back as the same closure (a closure
    /// kept as `Any` comes back wrapped in a new thunk with a context of its own).
    private final class Box<State>: Sendable {
        let reduce: @Sendable (State, any StoreAction) -> State

        init(_ reduce: @escaping @Sendable (State, any StoreAction) -> State) {
            self.reduce = reduce
        }
    }

    /// Every reducer type's box made so far, by the type's identity.
    private static let boxes = Lock<[ObjectIdentifier: AnyObject]>([:])

    /// `R.reduce(state:withAny:)` as a closure, the same object for every call with `R`.
    static func reduce<R: Reducer>(of reducer: R.Type) -> @Sendable (R.State, any StoreAction) -> R.State
    where R: SendableMetatype {
        boxes.withLock { boxes in
            let key = ObjectIdentifier(reducer)
            if let box = boxes[key] {
                // Cannot be another box: the key is `R`, whose box holds closures over `R.State`.
                return unsafeDowncast(box, to: Box<R.State>.self).reduce
            }
            let box = Box<R.State> { R.reduce(state: $0, withAny: $1) }
            boxes[key] = box
            return box.reduce
        }
    }
}
