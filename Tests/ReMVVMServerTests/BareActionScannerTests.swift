import ExampleApp
import Testing
@testable import ReMVVMServer

/// The fast path for `{"type":"<name>"}` bodies, and its agreement with the full decoder.
@Suite struct BareActionScannerTests {
    @Test(arguments: [
        (#"{"type":"increase"}"#, "increase"),
        (" {\n \"type\" : \"logout\" }\r\n", "logout"),
        (#"{"type":"with space"}"#, "with space"),
    ])
    func recognizesAnActionWithoutPayload(body: String, name: String) {
        #expect(BareActionScanner.typeName(in: Array(body.utf8)) == name)
    }

    @Test(arguments: [
        #"{"type":"login","payload":{}}"#,
        #"{"payload":{},"type":"login"}"#,
        #"{"type":"inc\u0072ease"}"#,
        #"{"type":""}"#,
        #"{"type":7}"#,
        #"{"type":"increase"} x"#,
        #"{"type":"increase""#,
        #"[{"type":"increase"}]"#,
        #"{"type":"increase","type":"decrease"}"#,
        #"{"type":"caf\#u{E9}"}"#,
        "",
    ])
    func leavesEverythingElseToTheFullDecoder(body: String) {
        #expect(BareActionScanner.typeName(in: Array(body.utf8)) == nil)
    }

    @Test func fastAndFullPathsGiveTheSameResults() throws {
        let decoder = ActionBatchDecoder(registry: ExampleApp.actions)
        // Same action from the fast path and from a body that must take the full path.
        let fast = try decoder.decode(Array(#"{"type":"increase"}"#.utf8))
        let full = try decoder.decode(Array(#"{"type":"increase","payload":{}}"#.utf8))
        #expect(fast.count == 1 && full.count == 1)
        #expect(fast.first is Increase && full.first is Increase)

        // Same errors: a missing payload names the field, an unknown type lists the known ones.
        for (bare, spelledOut) in [
            (#"{"type":"login"}"#, #"{"type":"login","payload":{}}"#),
            (#"{"type":"explode"}"#, #"{ "type" : "explode" , "payload" : null }"#),
        ] {
            let bareProblem = problem(decoder, bare)
            let fullProblem = problem(decoder, spelledOut)
            #expect(bareProblem != nil)
            #expect(bareProblem == fullProblem)
        }
    }

    private func problem(_ decoder: ActionBatchDecoder, _ body: String) -> Problem? {
        do {
            _ = try decoder.decode(Array(body.utf8))
            return nil
        } catch {
            return error.problem
        }
    }
}
