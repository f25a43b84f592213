import ArgumentParser

// On `ArgumentHelp?`, the type of `@Option`'s `help:`, so that `help: .setting(…)` finds it.
extension ArgumentHelp? {
    /// The help of a setting's flag: `text`, then the setting's built-in default, which
    /// ``ServerSettings/defaultText(_:)`` writes the way the flag takes it.
    static func setting(_ text: String, _ key: ServerSettings.Key, valueName: String? = nil) -> ArgumentHelp? {
        ArgumentHelp("\(text) (default: \(ServerSettings.defaultText(key)))", valueName: valueName)
    }
}
