import Journal
import ReMVVMServer

extension JournalVerification {
    /// The report's lines for `store` in a report on every store of a file: the store `default`'s
    /// as they always were; another store's name it (`DAMAGED: store room-1: …`), and a sound one
    /// is a single line.
    func lines(naming store: StoreID) -> [String] {
        guard store != .default else { return lines }
        guard !isSound else { return lines.prefix(1).map { "store \(store): \($0)" } }
        return lines.map { line in
            line.hasPrefix("DAMAGED: ")
                ? "DAMAGED: store \(store): " + line.dropFirst("DAMAGED: ".count)
                : "store \(store): \(line)"
        }
    }
}
