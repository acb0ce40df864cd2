/// Where in a file a finding points: 1-based line and column.
public struct SourcePosition: Sendable, Hashable, Codable, Comparable {
    /// The file, as given to the doctor (relative paths stay relative).
    public var file: String
    /// The line, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int

    /// Creates a position.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }

    /// `file:line:column`, as compilers print it.
    public var text: String { "\(file):\(line):\(column)" }
}

/// One problem the doctor found: the rule, what is wrong here, what Apple does about it, the fix.
///
/// ```swift
/// for finding in report.findings {
///     print(finding.rule.id, finding.message, finding.appleBehaviour, finding.fix)
/// }
/// ```
public struct Finding: Sendable, Hashable, Codable {
    /// The rule that fired.
    public var rule: DoctorRule
    /// What is wrong, naming the identifier, key or call.
    public var message: String
    /// What Apple does when this ships: a crash with Apple's message, a silent refusal or an error code.
    public var appleBehaviour: String
    /// How to fix it.
    public var fix: String
    /// Where: a source position, or the manifest (line unknown: line 1).
    public var position: SourcePosition?

    /// How bad it is (the rule's severity).
    public var severity: Severity { rule.severity }

    /// Creates a finding; `appleBehaviour` defaults to the rule's, with `<id>` replaced by `identifier`.
    public init(
        _ rule: DoctorRule,
        _ message: String,
        fix: String,
        at position: SourcePosition?,
        identifier: String? = nil,
        appleBehaviour: String? = nil
    ) {
        self.rule = rule
        self.message = message
        self.fix = fix
        self.position = position
        let general = appleBehaviour ?? rule.appleBehaviour
        self.appleBehaviour = identifier.map { general.replacingAll("<id>", with: $0) } ?? general
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation needed).
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
