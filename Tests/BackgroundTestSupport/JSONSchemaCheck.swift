public import Foundation

/// Python's `jsonschema` (4.x) over files: the schema's verdict on each. Tests that use it run
/// when it is installed (CI installs it: `.ci/run`).
public enum JSONSchemaCheck {
    /// Whether `python3 -c "import jsonschema"` works here. Asked once, when a test's traits
    /// are first evaluated (synchronously, before the tests run), so the blocking helper.
    public static let isAvailable: Bool =
        (try? runChildProcessBlocking(URL(filePath: "/usr/bin/env"), ["python3", "-c", "import jsonschema"]).status)
        == 0

    /// The schema's verdict on each file, "valid" or "invalid: <first error>", and the
    /// validator's exit status (0 when it ran).
    ///
    /// - Parameters:
    ///   - schema: The schema file.
    ///   - validator: The `jsonschema` class for the schema's draft (`Draft202012Validator`,
    ///     `Draft4Validator`); the schema itself is checked against its draft first.
    ///   - files: The JSON files to validate.
    public static func verdicts(
        schema: URL,
        validator: String,
        files: [String]
    ) async throws -> (status: Int32, verdicts: [String]) {
        let script = """
            import json, sys
            from jsonschema import \(validator) as Validator
            schema = json.load(open(sys.argv[1]))
            Validator.check_schema(schema)
            validator = Validator(schema)
            for path in sys.argv[2:]:
                errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
                print("valid" if not errors else "invalid: " + errors[0].message[:200].replace("\\n", " "))
            """
        let result = try await runChildProcess(
            URL(filePath: "/usr/bin/env"),
            ["python3", "-c", script, schema.path] + files
        )
        return (result.status, result.output.split(separator: "\n").map(String.init))
    }
}
