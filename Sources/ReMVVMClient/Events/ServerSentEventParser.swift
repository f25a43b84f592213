/// Turns the bytes of a `text/event-stream` into events, as the HTML standard's "interpreting an
/// event stream" says: lines end with CR LF, LF or CR; `data`, `event`, `id` and `retry` fields;
/// comments (`: ping`) ignored; a blank line dispatches; a block without data dispatches nothing.
///
/// Fed in pieces of any size: a line split between two pieces is kept until its end arrives.
public struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var lastWasCarriageReturn = false
    private var type = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var id: String?
    private var firstLine = true

    /// The reconnect delay the stream asked for with `retry:`, nil until one arrived.
    public private(set) var retry: Duration?

    /// Creates a parser at the start of a stream.
    public init() {}

    /// Parses `bytes` and returns the events they complete, in order.
    public mutating func parse(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n") where lastWasCarriageReturn:
                lastWasCarriageReturn = false  // the LF of a CR LF: the line already ended
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                lastWasCarriageReturn = byte == UInt8(ascii: "\r")
                if let event = endLine() { events.append(event) }
            default:
                lastWasCarriageReturn = false
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if firstLine {
            firstLine = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }  // a byte order mark
        }
        guard !line.isEmpty else { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = colon.map { line[..<$0] } ?? line[...]
        var value = colon.map { line[($0 + 1)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch String(decoding: name, as: UTF8.self) {
        case "data":
            if hasData { data.append(UInt8(ascii: "\n")) }
            data += value
            hasData = true
        case "event":
            type = String(decoding: value, as: UTF8.self)
        case "id" where !value.contains(0):
            id = String(decoding: value, as: UTF8.self)
        case "retry" where !value.isEmpty && value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }):
            if let milliseconds = Int64(String(decoding: value, as: UTF8.self)) {
                retry = .milliseconds(milliseconds)
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            type = ""
            data.removeAll(keepingCapacity: true)
            hasData = false
            id = nil
        }
        guard hasData else { return nil }
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: String(decoding: data, as: UTF8.self), id: id)
    }
}
