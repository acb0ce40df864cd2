import BackgroundTestSupport
import Foundation
import Testing

/// The scenario schema's verdict on files, through Python's `jsonschema` (``JSONSchemaCheck``).
/// The schema tests and the example tests run when it is installed (CI installs it: `.ci/run`).
enum SchemaValidator {
    static let schemas = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "schemas")
    static let schema = schemas.appending(path: "scenario.schema.json")
    static let reportSchema = schemas.appending(path: "termination-report.schema.json")

    static let isAvailable: Bool = JSONSchemaCheck.isAvailable

    /// The schema's verdict on each file: "valid" or "invalid: <first error>".
    static func verdicts(_ paths: [String], schema: URL = schema) async throws -> [String] {
        let (status, verdicts) = try await JSONSchemaCheck.verdicts(
            schema: schema,
            validator: "Draft202012Validator",
            files: paths
        )
        #expect(status == 0, "the validator failed")
        return verdicts
    }
}
