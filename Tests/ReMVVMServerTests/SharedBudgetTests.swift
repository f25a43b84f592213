import Synchronization
import Testing
@testable import ReMVVMServer

/// ``SharedBudget`` (as the resume rings use it): shares, the trimming passes, and the bound on
/// all rings together.
@Suite struct SharedBudgetTests {
    /// A ring as the budget sees it: the bytes it holds, filled to its share at each version and
    /// cut to it by a pass.
    private final class Ring: Sendable {
        let bytes = Mutex(0)
        let trims = Atomic(0)
        let budget: SharedBudget
        var id: ObjectIdentifier { ObjectIdentifier(self) }

        init(budget: SharedBudget) {
            self.budget = budget
        }

        /// A new version: the ring fills up to its share (joining with its first one).
        func publish(growth: Int) {
            let joining = bytes.withLock { $0 == 0 }
            let share = budget.share(joining: joining)
            bytes.withLock { $0 = min(share, $0 + growth) }
            if joining {
                budget.join(id) { [weak self] in self?.trim() }
            }
        }

        func trim() {
            trims.add(1, ordering: .relaxed)
            let share = budget.share(joining: false)
            bytes.withLock { $0 = min($0, share) }
        }
    }

    @Test func sharesAreTheBudgetOverTheRingsKeepingVersions() {
        let budget = SharedBudget(total: 1_200)
        #expect(budget.share(joining: false) == 1_200)
        #expect(budget.share(joining: true) == 1_200)
        let rings = (0..<3).map { _ in Ring(budget: budget) }
        rings[0].publish(growth: 1)
        #expect(budget.count == 1 && budget.share(joining: true) == 600)
        rings[1].publish(growth: 1)
        #expect(budget.share(joining: false) == 600 && budget.share(joining: true) == 400)
        budget.leave(rings[1].id)
        budget.leave(rings[1].id)
        #expect(budget.count == 1, "leaving twice counts once")
        budget.leave(rings[2].id)
        #expect(budget.count == 1, "a ring that never joined does not leave")
        #expect(SharedBudget(total: -5).share(joining: true) == 0)
    }

    @Test func everyRingIsTrimmedWhenTheirCountHasDoubledSinceTheLastPass() {
        let budget = SharedBudget(total: 1 << 20)
        let rings = (0..<16).map { _ in Ring(budget: budget) }
        var passes: [Int] = []
        var trimsSoFar = 0
        for (index, ring) in rings.enumerated() {
            ring.publish(growth: 1)
            let trims = rings.reduce(0) { $0 + $1.trims.load(ordering: .relaxed) }
            if trims > trimsSoFar {
                #expect(trims - trimsSoFar == index + 1, "a pass trims every ring")
                passes.append(index + 1)
            }
            trimsSoFar = trims
        }
        #expect(passes == [3, 7, 15])
        // Departures lower the count the next pass is measured from: 16 → 3, so a pass comes
        // again at 7 rings.
        for ring in rings[3...] {
            budget.leave(ring.id)
        }
        let before = rings.reduce(0) { $0 + $1.trims.load(ordering: .relaxed) }
        for ring in rings[3..<10] {
            ring.bytes.withLock { $0 = 0 }
            ring.publish(growth: 1)
        }
        let after = rings.reduce(0) { $0 + $1.trims.load(ordering: .relaxed) }
        #expect(after - before == 7, "one pass, when the rings were 7 > 2 × 3")
    }

    /// Rings joining, growing and leaving in a random order never hold more than twice the
    /// budget together, however large each grew while it had a larger share.
    @Test func allRingsTogetherStayUnderTwiceTheBudget() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            let total = 1 << 16
            let budget = SharedBudget(total: total)
            var live: [Ring] = []
            var worst = 0
            for _ in 0..<3_000 {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<3:
                    let ring = Ring(budget: budget)
                    ring.publish(growth: Int.random(in: 1...total, using: &generator))
                    live.append(ring)
                case 3 where !live.isEmpty:
                    let ring = live.remove(at: Int.random(in: live.indices, using: &generator))
                    budget.leave(ring.id)
                default:
                    live.randomElement(using: &generator)?.publish(growth: Int.random(in: 1...total, using: &generator))
                }
                #expect(budget.count == live.count)
                worst = max(worst, live.reduce(0) { $0 + $1.bytes.withLock { $0 } })
            }
            #expect(worst <= 2 * total, "round \(round): \(worst) bytes held")
            #expect(worst >= total / 2, "round \(round): the rings did fill their shares (\(worst))")
        }
    }
}
