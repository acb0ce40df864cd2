/// Text and number formatting for the timeline's markup: escaping for HTML and SVG, fixed-precision numbers (so the
/// same document always gives the same bytes), and label truncation.
enum TimelineMarkup {
    /// The width, in pixels, assumed for one character of the 10 px labels when deciding what fits.
    static let characterWidth = 6.0

    /// `text` escaped for an HTML or SVG text node or a double- or single-quoted attribute value.
    ///
    /// `&`, `<`, `>`, `"` and `'` become entities, line breaks become `&#10;` (kept in attribute values and shown by
    /// the tooltip), and characters XML does not allow (control characters, noncharacters) become U+FFFD.
    static func escaped(_ text: String) -> String {
        var clean = true
        for byte in text.utf8 where byte < 0x20 || byte >= 0x7F || Self.isSpecial(byte) {
            clean = false
            break
        }
        if clean { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\n": result += "&#10;"
            case "\t": result += "&#9;"
            default:
                if Self.isAllowedInXML(scalar) {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += "\u{FFFD}"
                }
            }
        }
        return result
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    private static func isAllowedInXML(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 { return value == 0x0A || value == 0x09 }
        if value >= 0x7F && value <= 0x9F { return false }
        if value >= 0xFDD0 && value <= 0xFDEF { return false }
        return value & 0xFFFE != 0xFFFE
    }

    /// `value` with one decimal, without a trailing `.0`: the precision of every coordinate.
    static func number(_ value: Double) -> String {
        fixed(value, places: 1)
    }

    /// `value` rounded to `places` decimals (at most 9), trailing zeros removed; not-finite values give `"0"`, and
    /// magnitudes are capped so that the result fits 18 digits.
    ///
    /// Written by hand rather than with `String(format:)` so that the output depends on nothing but the value.
    static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        let places = min(max(places, 0), 9)
        var factor = 1
        for _ in 0..<places { factor *= 10 }
        let magnitude = min(abs(value), 9e17 / Double(factor))
        let units = Int((magnitude * Double(factor)).rounded())
        var result = value < 0 && units != 0 ? "-" : ""
        result += String(units / factor)
        var fraction = units % factor
        guard fraction != 0 else { return result }
        var digits = places
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        result += "." + String(repeating: "0", count: digits - text.count) + text
        return result
    }

    /// The longest prefix of `text` that fits in `width` pixels, with an ellipsis when it was cut; `nil` when not even
    /// two characters fit. Line breaks become spaces.
    ///
    /// - Parameters:
    ///   - text: The label.
    ///   - width: The room, in pixels.
    ///   - characterWidth: The width assumed for one character, in pixels.
    static func truncated(_ text: String, toFit width: Double, characterWidth: Double = characterWidth) -> String? {
        guard width.isFinite, characterWidth > 0 else { return nil }
        let capacity = Int((width / characterWidth).rounded(.down))
        guard capacity >= 2, !text.isEmpty else { return nil }
        let head = text.prefix(capacity + 1)
        let fitting = head.count <= capacity ? String(head) : String(text.prefix(capacity - 1)) + "\u{2026}"
        return fitting.contains(where: \.isNewline) ? String(fitting.map { $0.isNewline ? " " : $0 }) : fitting
    }

    /// A state or condition label shown whole, never cut mid-word ("suspe…" says nothing): the
    /// label if it fits, else its short form (`susp`, `bg`), else nothing (the span's hover text
    /// still has it).
    static func wholeLabel(_ text: String, toFit width: Double, characterWidth: Double = characterWidth) -> String? {
        let candidates = [text] + (shortLabels[text].map { [$0] } ?? [])
        return candidates.first { Double($0.count) * characterWidth <= width && !$0.isEmpty }
    }

    /// Short forms of the lane labels that are often drawn in narrow spans.
    static let shortLabels: [String: String] = [
        "background": "bg", "suspended": "susp", "inactive": "inact", "terminated": "term", "notRunning": "off",
        "not running": "off", "active": "act", "cellular": "cell", "external power": "ext", "battery": "batt",
    ]

    /// The width, in pixels, that `text` takes as a 10 px label (an estimate; see ``characterWidth``).
    static func estimatedWidth(_ text: String) -> Double {
        Double(text.count) * characterWidth
    }
}
