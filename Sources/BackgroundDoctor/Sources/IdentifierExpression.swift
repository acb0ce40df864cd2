import SwiftSyntax

/// What a task-identifier expression evaluates to, as far as the sources say.
///
/// Real apps rarely pass literals: identifiers live in `static let` constants, in enums with raw
/// values, and are built by interpolating the bundle identifier. This is the expression reduced
/// to those parts; ``ConstantTable`` resolves references, and the manifest supplies the bundle
/// identifier.
indirect enum IdentifierExpression: Sendable, Hashable {
    /// A string literal (or a literal segment of an interpolation).
    case literal(String)
    /// `Bundle.main.bundleIdentifier` (force-unwrapped, or with `??` a default).
    case bundleIdentifier
    /// A name or a dotted path to a constant (`refreshID`, `TaskID.refresh`, `.refresh`, `Self.refresh`).
    case reference([String])
    /// Parts joined (`+`, or the segments of an interpolation).
    case concatenation([IdentifierExpression])
    /// Something the doctor does not evaluate, as written.
    case opaque(String)

    /// Reduces a Swift expression.
    init(_ syntax: ExprSyntax) {
        if let literal = syntax.as(StringLiteralExprSyntax.self) {
            self = Self.interpolation(literal)
        } else if let unwrap = syntax.as(ForceUnwrapExprSyntax.self) {
            self.init(unwrap.expression)
        } else if let tuple = syntax.as(TupleExprSyntax.self), tuple.elements.count == 1,
            let only = tuple.elements.first
        {
            self.init(only.expression)
        } else if let sequence = syntax.as(SequenceExprSyntax.self) {
            self = Self.sequence(sequence)
        } else if let path = Self.path(of: syntax) {
            self = Self.isBundleIdentifier(path) ? .bundleIdentifier : .reference(path)
        } else {
            self = .opaque(syntax.trimmedDescription)
        }
    }

    /// The segments of a string literal, literal text and interpolated expressions in order.
    private static func interpolation(_ literal: StringLiteralExprSyntax) -> IdentifierExpression {
        var parts: [IdentifierExpression] = []
        for segment in literal.segments {
            if let text = segment.as(StringSegmentSyntax.self) {
                parts.append(.literal(text.content.text))
            } else if let expression = segment.as(ExpressionSegmentSyntax.self) {
                guard expression.expressions.count == 1, let only = expression.expressions.first,
                    only.label == nil
                else { return .opaque(literal.trimmedDescription) }
                parts.append(IdentifierExpression(only.expression))
            }
        }
        return parts.count == 1 ? parts[0] : .concatenation(parts)
    }

    /// `a + b + c`, or `x ?? "default"` (the left side: a missing bundle identifier is a broken app).
    private static func sequence(_ sequence: SequenceExprSyntax) -> IdentifierExpression {
        let elements = Array(sequence.elements)
        guard elements.count >= 3, elements.count % 2 == 1 else { return .opaque(sequence.trimmedDescription) }
        let operators = stride(from: 1, to: elements.count, by: 2).compactMap {
            elements[$0].as(BinaryOperatorExprSyntax.self)?.operator.text
        }
        if operators.first == "??" { return IdentifierExpression(elements[0]) }
        guard operators.count == elements.count / 2, operators.allSatisfy({ $0 == "+" }) else {
            return .opaque(sequence.trimmedDescription)
        }
        return .concatenation(stride(from: 0, to: elements.count, by: 2).map { IdentifierExpression(elements[$0]) })
    }

    /// The dotted path of `a`, `A.b.c`, `.b`, `self.b` or `X.b.rawValue` (the raw value of a case is the case).
    static func path(of syntax: ExprSyntax) -> [String]? {
        if let reference = syntax.as(DeclReferenceExprSyntax.self) {
            return [reference.baseName.text]
        }
        if let unwrap = syntax.as(ForceUnwrapExprSyntax.self) { return path(of: unwrap.expression) }
        if let optional = syntax.as(OptionalChainingExprSyntax.self) { return path(of: optional.expression) }
        guard let member = syntax.as(MemberAccessExprSyntax.self) else { return nil }
        let name = member.declName.baseName.text
        guard let base = member.base else { return name == "rawValue" ? nil : [".", name] }
        guard let prefix = path(of: base) else { return nil }
        return name == "rawValue" ? prefix : prefix + [name]
    }

    private static func isBundleIdentifier(_ path: [String]) -> Bool {
        path.suffix(3) == ["Bundle", "main", "bundleIdentifier"]
    }
}

/// A resolved identifier, or why it could not be.
enum ResolvedIdentifier: Sendable, Hashable {
    case value(String)
    case unresolved(reason: String)

    var value: String? {
        if case .value(let value) = self { return value }
        return nil
    }
}
