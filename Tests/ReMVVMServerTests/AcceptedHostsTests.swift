@testable import ReMVVMServer
import Testing

/// The `Host` fields a check accepted are remembered so that the next request with the same one
/// is not parsed again; the verdicts stay those of ``HostCheck``, and the memory stays bounded.
@Suite struct AcceptedHostsTests {
    @Test func aRememberedHostGetsTheSameVerdictAsTheCheck() {
        let hosts = AcceptedHosts(.addressesAndLocalhost)
        for _ in 0..<3 {
            #expect(hosts.accepts(host: "127.0.0.1:8080"))
            #expect(hosts.accepts(host: "LOCALHOST"))
            #expect(!hosts.accepts(host: "rebound.example:8080"), "a refused name is never remembered as accepted")
        }
    }

    @Test func pastItsCapacityAcceptedHostsAreStillCheckedEveryTime() {
        let hosts = AcceptedHosts(.names(["app.example"]))
        for port in 0..<(AcceptedHosts.capacity * 4) {
            #expect(hosts.accepts(host: "127.0.0.1:\(port)"))
        }
        #expect(hosts.rememberedCount == AcceptedHosts.capacity)
        #expect(hosts.accepts(host: "app.example:443"), "the check still answers past the capacity")
        #expect(!hosts.accepts(host: "other.example"))
    }

    @Test func theCheckThatIsOffAcceptsAllWithoutLooking() {
        #expect(AcceptedHosts(.any).acceptsAll)
        #expect(!AcceptedHosts(.addressesAndLocalhost).acceptsAll)
    }

    @Test func aFieldAcceptedAgainKeepsItsOneSlot() {
        let hosts = AcceptedHosts(.addressesAndLocalhost)
        for _ in 0..<5 {
            #expect(hosts.accepts(host: "127.0.0.1:8080"))
        }
        #expect(hosts.rememberedCount == 1)
        #expect(hosts.accepts(host: "localhost:8080"))
        #expect(hosts.rememberedCount == 2)
    }

    /// Threads accepting fields at once: every verdict the check's, never more kept than the
    /// capacity, and a field kept twice only when two threads kept it at once.
    @Test func threadsAcceptingAtOnceGetTheChecksVerdicts() async {
        let hosts = AcceptedHosts(.addressesAndLocalhost)
        let fields = (0..<(AcceptedHosts.capacity * 2)).map { "127.0.0.1:\($0)" }
        let verdicts = await withTaskGroup(of: [Bool].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    fields.map { hosts.accepts(host: $0) } + [hosts.accepts(host: "evil.example")]
                }
            }
            return await group.reduce(into: []) { $0.append(contentsOf: $1) }
        }
        #expect(verdicts.count == 8 * (fields.count + 1))
        #expect(verdicts.filter { !$0 }.count == 8, "only evil.example is refused, by every thread")
        #expect(hosts.rememberedCount == AcceptedHosts.capacity)
    }
}
