import BackgroundTestSupport
import Foundation
import Testing

/// Python's `jsonschema` (4.x) over files: the schema's verdict on each. The schema tests and
/// the example tests run when it is installed (CI installs it: `.ci/run`).
enum SchemaValidator {
    static let schema = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "schemas/scenario.schema.json")

    private static let script = """
        import json, sys
        from jsonschema import Draft202012Validator
        schema = json.load(open(sys.argv[1]))
        Draft202012Validator.check_schema(schema)
        validator = Draft202012Validator(schema)
        for path in sys.argv[2:]:
            errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
            print("valid" if not errors else "invalid: " + errors[0].message[:200].replace("\\n", " "))
        """

    static let isAvailable: Bool = (try? python(["-c", "import jsonschema"]).status) == 0

    /// The schema's verdict on each file: "valid" or "invalid: <first error>".
    static func verdicts(_ paths: [String]) throws -> [String] {
        let (status, output) = try python(["-c", script, schema.path] + paths)
        #expect(status == 0, "the validator failed")
        return output.split(separator: "\n").map(String.init)
    }

    private static func python(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try runChildProcess(URL(filePath: "/usr/bin/env"), ["python3"] + arguments)
        return (result.status, result.output)
    }
}
