/// One server-sent event for one state version (the id is the version's tag, see ``VersionTags``):
///
///     id: 42
///     event: state
///     data: {"version":42,"action":{"type":"increase"},"state":{...}}
///
/// `data` is one line: compact JSON never contains a raw newline.
enum EventFrame {
    /// The frame for `version`; `action` is nil for the state a subscriber starts from before any reduce.
    static func state(version: UInt64, id: String, action: [UInt8]?, state: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(64 + (action?.count ?? 4) + state.count)
        frame += Array("id: \(id)\nevent: state\ndata: {\"version\":\(version),\"action\":".utf8)
        frame += action ?? Array("null".utf8)
        frame += Array(",\"state\":".utf8)
        frame += state
        frame += Array("}\n\n".utf8)
        return frame
    }

    /// `frame` with `"reset":true` after its version in `data`: the first event of a stream whose
    /// `Last-Event-ID` could not be served.
    static func markedAsReset(_ frame: [UInt8]) -> [UInt8] {
        let marker = Array("data: {\"version\":".utf8)
        guard let start = firstIndex(of: marker, in: frame) else { return frame }
        var end = start + marker.count
        while end < frame.count, frame[end] >= UInt8(ascii: "0"), frame[end] <= UInt8(ascii: "9") { end += 1 }
        var marked = frame
        marked.insert(contentsOf: Array(",\"reset\":true".utf8), at: end)
        return marked
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if Array(haystack[index..<(index + needle.count)]) == needle { return index }
        }
        return nil
    }

    /// The `retry:` field: how long a client waits before it reconnects, in milliseconds.
    static func retry(_ delay: Duration) -> [UInt8] {
        let milliseconds = max(0, delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        return Array("retry: \(milliseconds)\n".utf8)
    }
}
