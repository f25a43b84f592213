extension String {
    /// Whether the string's UTF-8 bytes start with `prefix`'s, compared in place. The access gate
    /// asks this of every path when tokens are configured: `String.hasPrefix` and
    /// `UTF8View.starts(with:)` cost 130–330 instructions a call there, this a few dozen.
    func hasBytePrefix(_ prefix: String) -> Bool {
        var text = self
        var prefix = prefix
        guard text.utf8.count >= prefix.utf8.count else { return false }
        return text.withUTF8 { bytes in
            prefix.withUTF8 { expected in
                for index in expected.indices where bytes[index] != expected[index] {
                    return false
                }
                return true
            }
        }
    }
}
