/// The location of a value in a scenario document, rendered the way error messages show it.
///
/// Object members render as `.key` (or `["key"]` when the key is not identifier-like), array
/// elements as `[3]`, and entries of the format's dictionaries (`tasks`, `finalStates`) as
/// `["com.example.refresh"]`. A path is built for every value read and rendered only for errors,
/// so building one is cheap: a node pointing at its parent.
struct ScenarioPath: Sendable, CustomStringConvertible {
    private indirect enum Node: Sendable {
        case root
        case key(Node, String)
        case index(Node, Int)
        case entry(Node, String)
    }

    private let node: Node

    /// The root of the document.
    static let root = ScenarioPath(node: .root)

    /// The path of the member `key` of the object at this path.
    func key(_ key: String) -> ScenarioPath { ScenarioPath(node: .key(node, key)) }

    /// The path of element `index` of the array at this path.
    func index(_ index: Int) -> ScenarioPath { ScenarioPath(node: .index(node, index)) }

    /// The path of the entry `key` of a dictionary-like object at this path.
    func entry(_ key: String) -> ScenarioPath { ScenarioPath(node: .entry(node, key)) }

    /// The rendered path, such as `apps[0].tasks["com.x.refresh"].work`; empty for the root.
    var description: String { Self.render(node) }

    private static func render(_ node: Node) -> String {
        switch node {
        case .root:
            return ""
        case .key(let parent, let key):
            let prefix = render(parent)
            guard isIdentifier(key) else { return prefix + "[" + quoted(key) + "]" }
            return prefix.isEmpty ? key : prefix + "." + key
        case .index(let parent, let index):
            return render(parent) + "[\(index)]"
        case .entry(let parent, let key):
            return render(parent) + "[" + quoted(key) + "]"
        }
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, key.unicodeScalars.count <= 64 else { return false }
        func isLetter(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar == "$"
        }
        return isLetter(first) && key.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }
}

/// `value` as a JSON string literal for messages: escaped, and shortened to 60 characters.
func quoted(_ value: String) -> String {
    var scalars = Array(value.unicodeScalars)
    var suffix = ""
    if scalars.count > 60 {
        scalars = Array(scalars.prefix(57))
        suffix = "…"
    }
    let literal = jsonStringLiteral(scalars)
    return suffix.isEmpty ? literal : String(literal.dropLast()) + suffix + "\""
}

extension String {
    /// The string preceded by zeros up to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
