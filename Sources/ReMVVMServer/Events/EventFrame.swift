import ConcurrencyKit

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
        frame += head(version: version, id: id)
        frame += Array(",\"action\":".utf8)
        frame += action ?? Array("null".utf8)
        frame += Array(",\"state\":".utf8)
        frame += state
        frame += Array("}\n\n".utf8)
        return frame
    }

    /// The `patch` event of `version` (`GET /events?delta=json-patch`): `patch` is the JSON array
    /// of RFC 6902 operations that turn the state of the version before into this one's.
    ///
    ///     id: 42
    ///     event: patch
    ///     data: {"version":42,"action":{"type":"increase"},"patch":[{"op":"replace","path":"/counter","value":42}]}
    static func patch(version: UInt64, id: String, action: [UInt8], patch: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(64 + action.count + patch.count)
        frame += Array("id: \(id)\nevent: patch\ndata: {\"version\":\(version)".utf8)
        frame += Array(",\"action\":".utf8)
        frame += action
        frame += Array(",\"patch\":".utf8)
        frame += patch
        frame += Array("}\n\n".utf8)
        return frame
    }

    /// The frame ``state(version:id:action:state:)`` made for `version` and `id`, with
    /// `"reset":true` after the version in `data`: the first event of a stream whose
    /// `Last-Event-ID` could not be served.
    static func markedAsReset(_ frame: [UInt8], version: UInt64, id: String) -> [UInt8] {
        var marked = frame
        marked.insert(contentsOf: Array(",\"reset\":true".utf8), at: head(version: version, id: id).count)
        return marked
    }

    /// Everything a state frame holds before its action: `id`, `event` and `data` up to the version.
    private static func head(version: UInt64, id: String) -> [UInt8] {
        Array("id: \(id)\nevent: state\ndata: {\"version\":\(version)".utf8)
    }

    /// The `retry:` field: how long a client waits before it reconnects, in milliseconds.
    static func retry(_ delay: Duration) -> [UInt8] {
        let milliseconds = max(0, delay.wholeMilliseconds)
        return Array("retry: \(milliseconds)\n".utf8)
    }
}
