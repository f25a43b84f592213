import JSONPatch
import Logging

/// Makes the event that takes `GET /events?delta=json-patch` streams from one version to the
/// next: a `patch` event holding the RFC 6902 operations from the previous state to this one
/// (``JSONPatch/diff(_:_:)``), or the version's `state` frame when the patch would be larger
/// than the state.
///
/// Works from the state JSON the hub encoded for the version (``EncodedVersion``), never encoding
/// a state again, and keeps the parsed tree of the newest version, so that each version is parsed
/// once and diffed once whatever the number of patch streams. A value the event hub owns and
/// uses on its publisher thread only; it does nothing while no patch stream listens (the hub
/// then calls ``forget()``).
struct PatchFrameEncoder {
    /// The newest version parsed and its tree: the old side of the next diff.
    private var previous: (version: UInt64, tree: JSON)?

    /// Keeps the tree of `encoded` as the base of the next patch (a new stream starts from its
    /// full state); parses it unless it is kept already. Throws if the state's JSON cannot be
    /// parsed (streams then get full states until a version parses).
    mutating func prepare(_ encoded: EncodedVersion, statistics: inout EventStatistics) throws(JSONPatchError) {
        if previous?.version == encoded.version { return }
        previous = nil
        let tree = try JSON(parsing: encoded.state)
        statistics.statesParsed += 1
        previous = (encoded.version, tree)
    }

    /// The event for `encoded` on a patch stream: its patch from the version before, or its
    /// `state` frame (shared with the state streams) when the patch is larger than the state or
    /// the version before was not kept.
    mutating func frame(for encoded: EncodedVersion, id: String, statistics: inout EventStatistics, logger: Logger) -> [UInt8] {
        let base = previous
        previous = nil
        let tree: JSON
        do {
            tree = try JSON(parsing: encoded.state)
        } catch {
            logger.error("state version \(encoded.version) cannot be parsed for patch streams, which get the full state: \(error)")
            statistics.fullStatesInsteadOfPatches += 1
            return encoded.frame
        }
        statistics.statesParsed += 1
        previous = (encoded.version, tree)
        guard let base, base.version + 1 == encoded.version else {
            statistics.fullStatesInsteadOfPatches += 1
            return encoded.frame
        }
        // More operations than this cannot fit in the state's length (each takes 25 bytes or more).
        let operations = JSONPatch.diff(base.tree, tree, maxOperations: encoded.state.count / 25)
        statistics.patchesComputed += 1
        guard let patch = operations?.canonicalBytes, patch.count <= encoded.state.count else {
            statistics.fullStatesInsteadOfPatches += 1
            return encoded.frame
        }
        return EventFrame.patch(version: encoded.version, id: id, action: encoded.action, patch: patch)
    }

    /// Drops the kept tree: no patch stream listens.
    mutating func forget() {
        previous = nil
    }
}
