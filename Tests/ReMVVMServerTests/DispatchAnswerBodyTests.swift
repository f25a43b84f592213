@testable import ReMVVMServer
import Testing

/// The body of an applied dispatch, written digit by digit.
@Suite struct DispatchAnswerBodyTests {
    @Test(arguments: [UInt64(0), 1, 9, 10, 99, 100, 12_345, 1_000_000, UInt64(Int64.max), UInt64.max])
    func theVersionBodyIsTheVersionInDecimal(version: UInt64) {
        #expect(String(decoding: DispatchAnswer.versionBody(version), as: UTF8.self) == "{\"version\":\(version)}")
    }
}
