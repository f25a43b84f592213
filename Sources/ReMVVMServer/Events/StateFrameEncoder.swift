import ReMVVM

/// Makes the `state` event of a version: one encoding for every stream that gets it, whether the
/// hub sends it live, replays it from its ring, or ``JournalReplay`` rebuilds it from the journal,
/// so that a resumed client reads the same bytes a live one did.
struct StateFrameEncoder: Sendable {
    let actions: ActionWireEncoder
    let versionTags: VersionTags

    /// A reduce as the store published it: its action's and state's JSON and its frame.
    func encode(_ publication: StatePublication<some Encodable & Sendable>) throws -> EncodedVersion {
        let action = actions.encode(publication.action)
        let (frame, state) = try frame(version: publication.version, action: action, state: publication.state)
        return EncodedVersion(version: publication.version, action: action, state: state, frame: frame)
    }

    /// The frame of a reduce as the store published it, and its state's JSON.
    func frame(for publication: StatePublication<some Encodable & Sendable>) throws -> (frame: [UInt8], state: [UInt8]) {
        try frame(version: publication.version, action: actions.encode(publication.action), state: publication.state)
    }

    /// The frame of `version`, reached by the action whose wire JSON is `action` (see
    /// ``ActionWireEncoder``), and its state's JSON.
    func frame(version: UInt64, action: [UInt8], state: some Encodable) throws -> (frame: [UInt8], state: [UInt8]) {
        let json = try JSONCoding.encode(state)
        return (EventFrame.state(version: version, id: versionTags.tag(version), action: action, state: json), json)
    }
}
