import Foundation

extension DoctorReport {
    /// Human text: one block per finding, compiler-style first line, then Apple's behaviour and the fix.
    ///
    /// ```
    /// App/AppDelegate.swift:12:9: error: BGD003 submitted-not-registered: a BGAppRefreshTaskRequest …
    ///     Apple: submit(_:) crashes the app with NSInternalInconsistencyException "No launch handler …"
    ///     Fix: call BGTaskScheduler.shared.register(forTaskWithIdentifier: …) in application(_:didFinishLaunchingWithOptions:)
    /// ```
    public func renderText() -> String {
        var text = ""
        for finding in findings {
            let place = finding.position.map { "\($0.text): " } ?? ""
            text +=
                "\(place)\(finding.severity.rawValue): \(finding.rule.id) \(finding.rule.name): \(finding.message)\n"
            text += "    Apple: \(finding.appleBehaviour)\n"
            text += "    Fix: \(finding.fix)\n"
        }
        for skipped in skippedFiles { text += "skipped \(skipped)\n" }
        let counts = Severity.allCases.reversed().map { severity in
            "\(findings.filter { $0.severity == severity }.count) \(severity.rawValue)(s)"
        }
        let examined = [manifest.map { "manifest \($0)" }, sourceFiles > 0 ? "\(sourceFiles) Swift file(s)" : nil]
            .compactMap { $0 }.joined(separator: " and ")
        text +=
            "\(findings.isEmpty ? "no findings" : counts.joined(separator: ", ")) in \(examined.isEmpty ? "nothing" : examined)"
        if !ignoredRules.isEmpty { text += " (ignored: \(ignoredRules.joined(separator: ", ")))" }
        return text + "\n"
    }

    /// The report as JSON: the findings with their rules, and the exit code.
    public func renderJSON() throws -> String {
        struct Document: Encodable {
            var report: DoctorReport
            var worstSeverity: Severity?
            var exitCode: Int32
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let document = Document(report: self, worstSeverity: worstSeverity, exitCode: exitCode)
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }

    /// The report as a SARIF 2.1.0 log, for code-scanning tools in CI.
    ///
    /// Every rule is listed in the tool's driver (so a tool can show the ones that did not fire),
    /// and each result points at its file, line and column.
    public func renderSARIF() throws -> String {
        let rules = DoctorRule.all
        let results: [[String: Any]] = findings.map { finding in
            var result: [String: Any] = [
                "ruleId": finding.rule.id,
                "ruleIndex": rules.firstIndex(of: finding.rule) ?? 0,
                "level": finding.severity.rawValue,
                "message": ["text": "\(finding.message). Apple: \(finding.appleBehaviour). Fix: \(finding.fix)."],
            ]
            if let position = finding.position {
                result["locations"] = [
                    [
                        "physicalLocation": [
                            "artifactLocation": [
                                "uri": position.file.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
                                    ?? position.file
                            ],
                            "region": ["startLine": position.line, "startColumn": position.column],
                        ]
                    ]
                ]
            }
            return result
        }
        let driver: [String: Any] = [
            "name": "bgctl-doctor",
            "informationUri": "https://developer.apple.com/documentation/backgroundtasks",
            "rules": rules.map { rule in
                [
                    "id": rule.id,
                    "name": rule.name,
                    "shortDescription": ["text": rule.summary],
                    "fullDescription": ["text": "Apple: \(rule.appleBehaviour)."],
                    "defaultConfiguration": ["level": rule.severity.rawValue],
                ] as [String: Any]
            },
        ]
        let log: [String: Any] = [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [["tool": ["driver": driver], "results": results]],
        ]
        let data = try JSONSerialization.data(
            withJSONObject: log,
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        )
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
