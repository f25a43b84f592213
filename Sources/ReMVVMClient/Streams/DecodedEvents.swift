import Foundation

/// An event stream with each event decoded into the app's types (`JSONDecoder`): the one shape of
/// ``StateUpdates`` and ``ViewModelUpdates``. A value that does not decode throws
/// ``ClientError/Code/coding``.
public struct DecodedEvents<Events: AsyncSequence & Sendable, Element: Sendable>: AsyncSequence, Sendable {
    let events: Events
    let decode: @Sendable (JSONDecoder, Events.Element) throws -> Element

    /// Starts reading the stream.
    public func makeAsyncIterator() -> Iterator {
        Iterator(events: events.makeAsyncIterator(), decode: decode)
    }

    /// Decodes each event.
    public struct Iterator: AsyncIteratorProtocol {
        var events: Events.AsyncIterator
        let decode: @Sendable (JSONDecoder, Events.Element) throws -> Element
        let decoder = JSONDecoder()

        /// The next event, decoded.
        public mutating func next() async throws -> Element? {
            guard let event = try await events.next() else { return nil }
            return try decode(decoder, event)
        }
    }
}
