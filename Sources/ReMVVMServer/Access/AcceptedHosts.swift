import ConcurrencyKit

/// A ``HostCheck`` that remembers the `Host` fields it accepted, so that the usual one
/// (`127.0.0.1:8080`, the same on every request of a client) is accepted by comparing it rather
/// than by parsing it again: the check lower-cases the name and parses it as an address, about
/// 5,500 instructions per request (Benchmarks/request-cost.sh), more than routing and answering
/// `GET /state` together.
///
/// Only accepted ASCII fields are kept (compared byte for byte: `==` on ASCII strings is byte
/// equality), at most ``capacity`` of them; later ones are checked every time. A client sending
/// ever new names thus pays the parse for each and cannot grow the memory, and a refused name is
/// never remembered.
///
/// Each field is kept in a slot set once (``SetOnceReference``): the usual request reads the first
/// slot with one atomic load, where a lock around the kept fields cost it about 145 instructions.
/// Two requests that accept one new field at once may keep it twice; it then takes two slots.
final class AcceptedHosts: Sendable {
    /// The most fields remembered.
    static let capacity = 8

    /// The check itself.
    let check: HostCheck
    /// The remembered fields, filled in order (a slot is set only after the ones before it).
    private let slots: [SetOnceReference]

    /// A remembered field.
    private final class Kept: Sendable {
        let field: String

        init(_ field: String) {
            self.field = field
        }
    }

    init(_ check: HostCheck) {
        self.check = check
        slots = (0..<Self.capacity).map { _ in SetOnceReference() }
    }

    /// Whether the check is off (``HostCheck/any``): nothing to look at.
    var acceptsAll: Bool {
        check == .any
    }

    /// How many slots hold a field (at most ``capacity``).
    var rememberedCount: Int {
        slots.count(where: { $0.load() != nil })
    }

    /// Whether a request with this `Host` field is answered; see ``HostCheck/accepts(host:)``.
    func accepts(host field: String) -> Bool {
        for slot in slots {
            guard let kept = slot.load() else { break }
            if unsafeDowncast(kept, to: Kept.self).field == field {
                return true
            }
        }
        guard check.accepts(host: field) else {
            return false
        }
        if field.utf8.allSatisfy({ $0 < 0x80 }) {
            remember(field)
        }
        return true
    }

    /// Keeps `field` in the first free slot, unless a slot before it holds it already.
    private func remember(_ field: String) {
        let kept = Kept(field)
        for slot in slots {
            let held = unsafeDowncast(slot.storeIfNil(kept), to: Kept.self)
            if held === kept || held.field == field {
                return
            }
        }
    }
}
