public import BackgroundCore
import BackgroundManifest
import Foundation

/// Checks an app's setup, its `Info.plist` and its Swift sources, against Apple's rules.
///
/// ```swift
/// let report = try Doctor.examine(manifest: "App/Info.plist", sources: ["App"])
/// for finding in report.findings { print(finding.rule.id, finding.message) }
/// exit(report.exitCode)   // 0 clean or notes, 1 warnings, 2 errors
/// ```
public enum Doctor {
    /// Examines a manifest and sources (either may be absent) and returns the findings.
    ///
    /// - Parameters:
    ///   - manifest: `Info.plist` (XML or binary) or a JSON file with the same keys.
    ///   - sources: Swift files or directories (walked without following symbolic links).
    ///   - ignoring: Rule identifiers or names to leave out (`BGD002`, `permitted-never-registered`).
    /// - Throws: ``DoctorError`` when an input is missing (exit 66) or malformed (exit 65).
    public static func examine(
        manifest: String?,
        sources: [String],
        ignoring: Set<String> = []
    ) throws(DoctorError) -> DoctorReport {
        var findings: [Finding] = []
        var loaded: AppManifest?
        if let manifest {
            let input = try ManifestInput.load(manifest)
            loaded = input.manifest
            findings += input.findings
        }
        let files = try AppSources.files(in: sources)
        let facts = files.isEmpty ? nil : AppSources.scan(files)
        let examination = Examination(manifest: loaded, manifestPath: manifest, facts: facts)
        findings += examination.findings()
        let ignored = Set(ignoring.compactMap { DoctorRule.named($0)?.id })
        let kept = findings.filter { !ignored.contains($0.rule.id) }.sorted(by: Finding.reportOrder)
        return DoctorReport(
            app: loaded?.bundleIdentifier,
            manifest: manifest,
            sourceFiles: files.count,
            skippedFiles: facts?.skippedFiles.map { "\($0.file): \($0.reason)" } ?? [],
            ignoredRules: ignored.sorted(),
            findings: kept
        )
    }
}

extension Finding {
    /// Position first (manifest findings without a line first), then rule, then message.
    static func reportOrder(_ a: Finding, _ b: Finding) -> Bool {
        let left = a.position ?? SourcePosition(file: "", line: 0, column: 0)
        let right = b.position ?? SourcePosition(file: "", line: 0, column: 0)
        if left != right { return left < right }
        if a.rule.id != b.rule.id { return a.rule.id < b.rule.id }
        return a.message < b.message
    }
}

/// The result: every finding, ordered, and what was examined.
public struct DoctorReport: Sendable, Hashable, Codable {
    /// The app's bundle identifier, when a manifest was given.
    public var app: AppID?
    /// The manifest file examined.
    public var manifest: String?
    /// How many Swift files were examined.
    public var sourceFiles: Int
    /// Files that could not be read, with why.
    public var skippedFiles: [String]
    /// Rules left out on request.
    public var ignoredRules: [String]
    /// The findings, by position then rule.
    public var findings: [Finding]

    /// The worst severity found, nil when there is nothing.
    public var worstSeverity: Severity? { findings.map(\.severity).max() }

    /// The exit code by the worst severity: 0 nothing or notes, 1 warnings, 2 errors.
    public var exitCode: Int32 {
        switch worstSeverity {
        case .error: 2
        case .warning: 1
        case .note, nil: 0
        }
    }
}
