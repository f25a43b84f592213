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
}
