/// Why a view-model stream cannot be opened.
enum ViewModelStreamError: Error, CustomStringConvertible {
    case unknownName(String)

    var description: String {
        switch self {
        case .unknownName(let name): "no view model is registered as \"\(name)\""
        }
    }
}
