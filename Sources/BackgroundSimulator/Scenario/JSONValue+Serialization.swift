public import Foundation

extension JSONValue {
    /// The value as JSON text: pretty printed with two-space indentation, object keys sorted,
    /// ending without a newline.
    ///
    /// The output depends only on the value, never on the platform, so it is fit for golden
    /// files and for reproducers. Non-finite doubles, which JSON cannot represent, become `null`.
    ///
    /// ```swift
    /// let value: JSONValue = ["b": [1, 2], "a": "x"]
    /// print(value.serialized())
    /// // {
    /// //   "a": "x",
    /// //   "b": [
    /// //     1,
    /// //     2
    /// //   ]
    /// // }
    /// ```
    public func serialized() -> String {
        var output = ""
        write(to: &output, indentation: 0)
        return output
    }

    /// ``serialized()`` as UTF-8 data followed by a newline, ready to write to a file.
    public func serializedData() -> Data {
        Data((serialized() + "\n").utf8)
    }

    private func write(to output: inout String, indentation: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .double(let value): output += value.isFinite ? "\(value)" : "null"
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[]"
                return
            }
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += String(repeating: " ", count: indentation + 2)
                element.write(to: &output, indentation: indentation + 2)
                output += index == elements.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indentation) + "]"
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            output += "{\n"
            let keys = members.keys.sorted()
            for (index, key) in keys.enumerated() {
                output += String(repeating: " ", count: indentation + 2)
                Self.writeString(key, to: &output)
                output += ": "
                members[key]!.write(to: &output, indentation: indentation + 2)
                output += index == keys.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: indentation) + "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += jsonStringLiteral(value.unicodeScalars)
    }
}

/// A JSON string literal of these scalars: quotes, backslashes and control characters escaped.
func jsonStringLiteral(_ scalars: some Sequence<Unicode.Scalar>) -> String {
    var result = "\""
    for scalar in scalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result + "\""
}
