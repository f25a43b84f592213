/// What a reduce check (``Store/addReduceCheck(handingOn:)``) says of an action about to be
/// reduced.
public enum ReduceCheckVerdict: Sendable, Equatable {
    /// Reduce it.
    case admit
    /// Reduce it, and hand `receipt` — what the check made of the action on the way, such as its
    /// encoding for a journal — to the reduce's publication (``StatePublication/receipt``), so
    /// that a publication handler need not make it again.
    case admitHandingOn(ReduceCheckReceipt)
    /// Do not reduce it, for this reason.
    case refuse(String)

    /// The reason of a ``refuse(_:)``, or nil.
    public var refusal: String? {
        if case .refuse(let reason) = self { return reason }
        return nil
    }

    /// `self` after `later`, the next check's verdict on the same action: the first refusal
    /// refuses (`later` is then not asked); otherwise the last receipt is handed on.
    func followed(by later: @autoclosure () -> ReduceCheckVerdict) -> ReduceCheckVerdict {
        if case .refuse = self { return self }
        let next = later()
        if case .admitHandingOn = self, case .admit = next { return self }
        return next
    }
}

/// Bytes a reduce check made of an action, handed on to the reduce's publication, with who made
/// them: a publication handler takes them only from the check it knows (its own issuer), so a
/// second check's bytes are never read as the first's.
public struct ReduceCheckReceipt: Sendable, Equatable {
    /// The object whose check made ``bytes`` (compare with `ObjectIdentifier(self)` there).
    public let issuer: ObjectIdentifier
    /// What the check made of the action.
    public let bytes: [UInt8]

    /// A receipt of `bytes`, made by `issuer`'s check.
    public init(issuer: ObjectIdentifier, bytes: [UInt8]) {
        self.issuer = issuer
        self.bytes = bytes
    }
}
