import SwiftSyntax

/// The string constants an app's sources declare: `static let`, `let` (members, globals and
/// locals, keyed by their enclosing types) and enum cases with `String` raw values.
///
/// ```swift
/// enum TaskID { static let refresh = "\(Bundle.main.bundleIdentifier!).refresh" }
/// // table.resolve(.reference(["TaskID", "refresh"]), in: [], bundleIdentifier: "com.example.app")
/// // == .value("com.example.app.refresh")
/// ```
struct ConstantTable: Sendable {
    /// Each constant's qualified path (enclosing types, then its name) and value; a path declared
    /// twice with different values is ambiguous (nil).
    private(set) var constants: [[String]: IdentifierExpression?] = [:]

    mutating func declare(_ path: [String], _ value: IdentifierExpression) {
        if let existing = constants[path], existing != value {
            constants[path] = .some(nil)
        } else {
            constants[path] = value
        }
    }

    /// Resolves an expression found inside the types `scope` (outermost first).
    func resolve(
        _ expression: IdentifierExpression,
        in scope: [String],
        bundleIdentifier: String?
    ) -> ResolvedIdentifier {
        resolve(expression, in: scope, bundleIdentifier: bundleIdentifier, depth: 0)
    }

    private func resolve(
        _ expression: IdentifierExpression,
        in scope: [String],
        bundleIdentifier: String?,
        depth: Int
    ) -> ResolvedIdentifier {
        guard depth < 32 else { return .unresolved(reason: "constants refer to each other in a cycle") }
        switch expression {
        case .literal(let text):
            return .value(text)
        case .bundleIdentifier:
            guard let bundleIdentifier else {
                return .unresolved(reason: "it uses Bundle.main.bundleIdentifier and no manifest was given")
            }
            return .value(bundleIdentifier)
        case .opaque(let text):
            return .unresolved(reason: "`\(text)` is computed at run time")
        case .concatenation(let parts):
            var result = ""
            for part in parts {
                switch resolve(part, in: scope, bundleIdentifier: bundleIdentifier, depth: depth + 1) {
                case .value(let text): result += text
                case .unresolved(let reason): return .unresolved(reason: reason)
                }
            }
            return .value(result)
        case .reference(let path):
            guard let (found, declaredIn) = lookUp(path, in: scope) else {
                return .unresolved(
                    reason:
                        "`\(path.joined(separator: ".").replacingAll("..", with: "."))` is not a constant in the sources"
                )
            }
            guard let value = found else {
                return .unresolved(
                    reason: "`\(path.joined(separator: "."))` is declared more than once with different values"
                )
            }
            return resolve(value, in: declaredIn, bundleIdentifier: bundleIdentifier, depth: depth + 1)
        }
    }

    /// The constant a path names, and the scope it was declared in.
    private func lookUp(_ path: [String], in scope: [String]) -> (IdentifierExpression?, [String])? {
        var path = path
        if path.first == "self" || path.first == "Self" { path = scope + path.dropFirst() }
        if path.first == "." { return unique { $0.last == path.last && $0.count >= 2 } }
        // Innermost scope first: a member shadows a global of the same name.
        for depth in stride(from: scope.count, through: 0, by: -1) {
            let candidate = Array(scope.prefix(depth)) + path
            if let value = constants[candidate] { return (value, Array(candidate.dropLast())) }
        }
        // A nested type named from outside its parent (`TaskID.refresh` for `App.TaskID.refresh`).
        return unique { $0.count > path.count && Array($0.suffix(path.count)) == path }
    }

    private func unique(_ matches: ([String]) -> Bool) -> (IdentifierExpression?, [String])? {
        let candidates = constants.filter { matches($0.key) }
        // The smallest path, so the answer never depends on the dictionary's order.
        guard let first = candidates.min(by: { $0.key.lexicographicallyPrecedes($1.key) }) else { return nil }
        let values = Set(candidates.values.map { $0 })
        guard values.count == 1 else { return (nil, []) }
        return (first.value, Array(first.key.dropLast()))
    }
}

/// Fills a ``ConstantTable`` from one file.
final class ConstantCollector: SyntaxVisitor {
    private(set) var table: ConstantTable
    private var types: [(name: [String], stringBacked: Bool)] = []

    init(into table: ConstantTable) {
        self.table = table
        super.init(viewMode: .sourceAccurate)
    }

    private var scope: [String] { types.flatMap(\.name) }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { push(node.name.text) }
    override func visitPost(_ node: StructDeclSyntax) { types.removeLast() }
    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { push(node.name.text) }
    override func visitPost(_ node: ClassDeclSyntax) { types.removeLast() }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { push(node.name.text) }
    override func visitPost(_ node: ActorDeclSyntax) { types.removeLast() }
    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        types.append((node.extendedType.trimmedDescription.split(separator: ".").map(String.init), false))
        return .visitChildren
    }
    override func visitPost(_ node: ExtensionDeclSyntax) { types.removeLast() }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        let inherited = node.inheritanceClause?.inheritedTypes.map(\.type.trimmedDescription) ?? []
        types.append(([node.name.text], inherited.contains("String")))
        return .visitChildren
    }
    override func visitPost(_ node: EnumDeclSyntax) { types.removeLast() }

    private func push(_ name: String) -> SyntaxVisitorContinueKind {
        types.append(([name], false))
        return .visitChildren
    }

    override func visit(_ node: EnumCaseDeclSyntax) -> SyntaxVisitorContinueKind {
        guard let current = types.last, current.stringBacked else { return .skipChildren }
        for element in node.elements {
            let name = element.name.text
            let value = element.rawValue.map { IdentifierExpression($0.value) } ?? .literal(name)
            table.declare(scope + [name], value)
        }
        return .skipChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        guard node.bindingSpecifier.tokenKind == .keyword(.let) else { return .visitChildren }
        for binding in node.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                let value = binding.initializer?.value
            else { continue }
            let expression = IdentifierExpression(value)
            if case .opaque = expression { continue }
            table.declare(scope + [name], expression)
        }
        return .visitChildren
    }
}
