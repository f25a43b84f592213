import ExampleApp
@testable import ReMVVMServer
import Testing

/// The registry finds an action by its wire name, as a string or as the bytes of a body; a name
/// registered again is the new type's.
@Suite struct ActionRegistryTests {
    @Test func aNameIsFoundAsAStringAndAsBytes() {
        let registry = ExampleApp.actions
        for name in registry.names {
            #expect(registry.entry(named: name)?.name == name)
            #expect(Array(name.utf8).withUnsafeBufferPointer { registry.entry(nameBytes: $0) }?.name == name)
        }
        #expect(registry.entry(named: "Increase") == nil, "names are exact")
        #expect(Array("increas".utf8).withUnsafeBufferPointer { registry.entry(nameBytes: $0) } == nil)
    }

    @Test func registeringANameAgainReplacesItsAction() throws {
        var registry = ActionRegistry()
        registry.register(Increase.self, as: "step")
        registry.register(Decrease.self, as: "step")
        #expect(registry.names == ["step"])
        let decoded = try ActionBatchDecoder(registry: registry).decode(Array(#"{"type":"step"}"#.utf8))
        #expect(decoded.first is Decrease, "the bare body's lookup by bytes finds the new one")
        let full = try ActionBatchDecoder(registry: registry).decode(Array(#"{"type":"step","payload":{}}"#.utf8))
        #expect(full.first is Decrease)
    }
}
