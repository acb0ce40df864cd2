/// A length or offset as an HTTP server states it (`Content-Length`, `Content-Range`): ASCII
/// digits only (RFC 9110 §8.6 and §14.4: `1*DIGIT`), no sign, no spaces, and at most 18 of
/// them.
///
/// A server is untrusted: a number it states may be anything, and the engine adds to it
/// (`last + 1`, `offset + count`). Eighteen digits are below 10^18, so the sum of two such
/// numbers stays far below `Int64.max` (about 9.2 × 10^18) and no arithmetic on them can
/// trap; a resource of an exabyte or more is refused as malformed, which no real server sends.
enum HTTPDecimal {
    /// The most digits a stated number may have.
    static let maximumDigits = 18

    /// The number `text` states, or nil if it is not one by the rules above.
    ///
    /// ```swift
    /// HTTPDecimal.parse("1000")                 // 1000
    /// HTTPDecimal.parse("+5"), .parse("-5")     // nil, nil
    /// HTTPDecimal.parse("9223372036854775807")  // nil: 19 digits
    /// ```
    static func parse<Text: StringProtocol>(_ text: Text) -> Int64? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= maximumDigits else { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }
}
