/// Escaping of control characters in text meant for a terminal, a log line or a report.
///
/// Names come from app code, manifests, scenarios and other processes: an assertion named
/// `"x\nTermination Reason:  exited with status 0"` would forge a report line, and an escape
/// sequence would reach the reader's terminal. Every text rendering passes such values through
/// ``escaped(_:)``; JSON renderings escape them already.
///
/// ```swift
/// ControlCharacters.escaped("a\nb\u{1B}[31m")   // a\nb\u{1B}[31m, on one line, printable
/// ```
public enum ControlCharacters {
    /// `text` with every control character written as an escape: `\n`, `\r`, `\t`, and
    /// `\u{XX}` for the others (C0, DEL, C1, the line and paragraph separators, and the
    /// bidirectional overrides that reorder what a terminal shows). Text without any is
    /// returned unchanged.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// `text` with each line escaped and the line breaks kept: for multi-line text whose
    /// lines come from elsewhere (a reply from another process).
    public static func escapedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }
            .joined(separator: "\n")
    }

    /// Whether `scalar` must not reach a terminal or a line-oriented file as it is.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
