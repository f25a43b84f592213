import JSONPatch
import Logging

/// Makes the event that takes `GET /events?delta=json-patch` streams from one version to the
/// next: a `patch` event holding the RFC 6902 operations from the previous state to this one, or
/// the version's `state` frame when the patch would be larger than the state.
///
/// Works from the state JSON the hub encoded for the version (``EncodedVersion``), never encoding
/// a state again, and keeps the newest version's JSON: the operations are found by comparing the
/// two texts (``JSONPatch/diff(canonical:_:maxOperations:)``: what has the same bytes on both
/// sides is skipped unparsed, only the values an operation carries are parsed), once per version
/// whatever the number of patch streams. A value the event hub owns and uses on its publisher
/// thread only; it does nothing while no patch stream listens (the hub then calls ``forget()``).
struct PatchFrameEncoder {
    /// The newest version's state JSON: the old side of the next diff.
    private var previous: (version: UInt64, state: [UInt8])?

    /// Keeps the state of `encoded` as the base of the next patch (a new stream starts from its
    /// full state).
    mutating func prepare(_ encoded: EncodedVersion) {
        previous = (encoded.version, encoded.state)
    }

    /// The event for `encoded` on a patch stream: its patch from the version before, or its
    /// `state` frame (shared with the state streams) when the patch is larger than the state or
    /// the version before was not kept.
    mutating func frame(for encoded: EncodedVersion, id: String, statistics: inout EventStatistics, logger: Logger) -> [UInt8] {
        let base = previous
        previous = (encoded.version, encoded.state)
        guard let base, base.version + 1 == encoded.version else {
            statistics.fullStatesInsteadOfPatches += 1
            return encoded.frame
        }
        // More operations than this cannot fit in the state's length (each takes 25 bytes or more).
        let operations: [PatchOperation]?
        do {
            operations = try JSONPatch.diff(canonical: base.state, encoded.state, maxOperations: encoded.state.count / 25)
        } catch {
            logger.error("state version \(encoded.version) cannot be read for patch streams, which get the full state: \(error)")
            statistics.fullStatesInsteadOfPatches += 1
            return encoded.frame
        }
        statistics.statesParsed += 1
        statistics.patchesComputed += 1
        guard let patch = operations?.canonicalBytes, patch.count <= encoded.state.count else {
            statistics.fullStatesInsteadOfPatches += 1
            return encoded.frame
        }
        return EventFrame.patch(version: encoded.version, id: id, action: encoded.action, patch: patch)
    }

    /// Drops the kept state: no patch stream listens.
    mutating func forget() {
        previous = nil
    }
}
