import ReMVVMNavigation

extension ActionRegistry {
    /// Registers the navigation actions under their wire names: `navigation.push`
    /// (``ReMVVMNavigation/Push``, `{"screen", "key"}`), `navigation.pop`, `navigation.popToRoot`,
    /// `navigation.showModal` (`{"screen", "key"}`), `navigation.dismissModal` and
    /// `navigation.selectTab` (`{"tab"}`).
    public mutating func registerNavigation() {
        register(Push.self, as: "navigation.push")
        register(Pop.self, as: "navigation.pop")
        register(PopToRoot.self, as: "navigation.popToRoot")
        register(ShowModal.self, as: "navigation.showModal")
        register(DismissModal.self, as: "navigation.dismissModal")
        register(SelectTab.self, as: "navigation.selectTab")
    }
}
