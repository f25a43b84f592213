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
final class AcceptedHosts: Sendable {
    /// The most fields remembered.
    static let capacity = 8

    /// The check itself.
    let check: HostCheck
    private let accepted = Lock<[String]>([])

    init(_ check: HostCheck) {
        self.check = check
    }

    /// Whether the check is off (``HostCheck/any``): nothing to look at.
    var acceptsAll: Bool {
        check == .any
    }

    /// How many accepted fields are remembered (at most ``capacity``).
    var rememberedCount: Int {
        accepted.withLock { $0.count }
    }

    /// Whether a request with this `Host` field is answered; see ``HostCheck/accepts(host:)``.
    func accepts(host field: String) -> Bool {
        if accepted.withLock({ $0.contains(field) }) {
            return true
        }
        guard check.accepts(host: field) else {
            return false
        }
        if field.utf8.allSatisfy({ $0 < 0x80 }) {
            accepted.withLock { accepted in
                if accepted.count < Self.capacity, !accepted.contains(field) {
                    accepted.append(field)
                }
            }
        }
        return true
    }
}
