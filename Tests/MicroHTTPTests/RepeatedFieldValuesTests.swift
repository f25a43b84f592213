import HTTPTestSupport
import Testing
@testable import MicroHTTP

/// Long header values a connection's requests repeat are handed out again (the same string),
/// and a request always reads the values it carried itself, whatever came before it.
@Suite struct RepeatedFieldValuesTests {
    private static let token = "Bearer 0123456789abcdefghij"

    /// The value `values` gives for `text`'s bytes.
    private func value(_ text: String, in values: inout RepeatedFieldValues.Values) -> String {
        Array(text.utf8).withUnsafeBytes { bytes in
            values.value(bytes) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// The address of `text`'s bytes: the same for one string object handed out twice.
    private func storage(_ text: String) -> UnsafeRawPointer? {
        text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    @Test func aRepeatedLongValueIsTheSameStringAgain() {
        var values = RepeatedFieldValues.Values()
        let first = value(Self.token, in: &values)
        let second = value(Self.token, in: &values)
        #expect(first == Self.token && second == Self.token)
        #expect(storage(first) == storage(second), "no new string made for the repeat")
    }

    @Test func anotherValueOfTheSameLengthIsItsOwnString() {
        var values = RepeatedFieldValues.Values()
        _ = value(Self.token, in: &values)
        let other = "Bearer 0123456789abcdefghiJ"
        #expect(value(other, in: &values) == other)
        #expect(value(Self.token, in: &values) == Self.token, "both kept")
    }

    @Test func bytesThatAreNotUTF8ReadAsTheyWouldWithoutTheCache() {
        var values = RepeatedFieldValues.Values()
        let bytes: [UInt8] = Array("Bearer 0123456789".utf8) + [0xFF, 0xFE]
        func read() -> String {
            bytes.withUnsafeBytes { raw in values.value(raw) { String(decoding: $0, as: UTF8.self) } }
        }
        let expected = String(decoding: bytes, as: UTF8.self)
        #expect(read() == expected)
        #expect(read() == expected, "the repaired string is never taken for the raw bytes")
    }

    @Test func pastItsCapacityTheOldestValueMakesRoom() {
        var values = RepeatedFieldValues.Values()
        let texts = (0...RepeatedFieldValues.capacity).map { "value number \($0) of a long header" }
        let first = texts.map { value($0, in: &values) }
        let newest = RepeatedFieldValues.capacity
        #expect(storage(value(texts[newest], in: &values)) == storage(first[newest]), "the newest is kept")
        #expect(value(texts[0], in: &values) == texts[0], "the oldest, made room for, reads the same")
    }

    @Test func eachRequestOnAConnectionReadsItsOwnValues() throws {
        let requests = Mailbox<Request>()
        let server = try TestServer(responder: ClosureResponder { request in
            requests.post(request)
            return .ok("ok")
        })
        let client = server.client()
        let sent = [Self.token, Self.token, "Bearer 0123456789abcdefghiJ", "Bearer another-token-of-its-own", Self.token, "short"]
        for value in sent {
            _ = try client.send(path: "/", headers: [("Authorization", value), ("User-Agent", "a client of this test, v1")])
        }
        var received: [String?] = []
        for _ in sent {
            let request = try #require(requests.next(timeout: .seconds(5)))
            received.append(request.headers["Authorization"])
            #expect(request.headers["User-Agent"] == "a client of this test, v1")
        }
        #expect(received == sent)
        #expect(client.connectionsOpened == 1, "all on one connection")
    }
}
