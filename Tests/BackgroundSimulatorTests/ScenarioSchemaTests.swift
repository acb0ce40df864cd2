import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Testing

/// The JSON Schema and the documentation agree with the decoder.
///
/// The schema checks run Python's `jsonschema` (4.x) when it is installed, and are skipped when
/// it is not: `python3 -m pip install jsonschema`.
@Suite("Scenario schema and documentation")
struct ScenarioSchemaTests {
    private static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private static let schemaURL = packageRoot.appending(path: "schemas/scenario.schema.json")
    private static let docsURL = packageRoot.appending(path: "docs/scenarios.md")

    private static let hasJSONSchema = SchemaValidator.isAvailable

    /// The schema's verdict on each document: "valid" or "invalid: <first error>".
    private static func schemaVerdicts(_ documents: [String]) async throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appending(path: "scenario-schema-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (index, document) in documents.enumerated() {
            let file = directory.appending(path: "\(index).json")
            try Data(document.utf8).write(to: file)
            paths.append(file.path)
        }
        return try await SchemaValidator.verdicts(paths)
    }

    /// The fenced ```json blocks of the documentation that are whole scenarios.
    private static func documentedScenarios() throws -> [String] {
        let markdown = try String(contentsOf: docsURL, encoding: .utf8)
        return markdown.components(separatedBy: "```json\n").dropFirst()
            .compactMap { $0.components(separatedBy: "\n```").first }
            .filter { $0.contains("\"formatVersion\"") }
    }

    @Test("The schema is valid JSON, parsed by the scenario parser")
    func schemaIsJSON() throws {
        let schema = try JSONValue(parsing: Data(contentsOf: Self.schemaURL))
        #expect(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test("Every whole scenario in docs/scenarios.md decodes")
    func documentedScenariosDecode() throws {
        let scenarios = try Self.documentedScenarios()
        #expect(scenarios.count >= 2)
        for json in scenarios {
            #expect(throws: Never.self) { try Scenario.decode(from: Data(json.utf8)) }
        }
        // The documentation's full example is the fixture the decoding tests check in detail.
        let documented = try scenarios.map { try Scenario.decode(from: Data($0.utf8)) }
        #expect(try documented.contains(Scenario.decode(from: Data(ScenarioFixtures.newsDay.utf8))))
    }

    @Test(
        "The schema accepts the valid fixtures and the documented scenarios",
        .enabled(
            if: hasJSONSchema || OptionalTools.required,
            "skipped: needs Python's jsonschema; apt-get install python3-jsonschema (or pip install jsonschema)"
        )
    )
    func schemaAcceptsValid() async throws {
        let documents = [ScenarioFixtures.newsDay] + ScenarioFixtures.validVariants + (try Self.documentedScenarios())
        let verdicts = try await Self.schemaVerdicts(documents)
        #expect(verdicts.count == documents.count)
        for (document, verdict) in zip(documents, verdicts) {
            #expect(verdict == "valid", "\(document.prefix(80))")
        }
    }

    @Test(
        "The schema rejects what the decoder rejects, where a schema can tell",
        .enabled(
            if: hasJSONSchema || OptionalTools.required,
            "skipped: needs Python's jsonschema; apt-get install python3-jsonschema (or pip install jsonschema)"
        )
    )
    func schemaRejectsInvalid() async throws {
        let fixtures = ScenarioFixtures.invalid
        let verdicts = try await Self.schemaVerdicts(fixtures.map(\.json))
        #expect(verdicts.count == fixtures.count)
        for (fixture, verdict) in zip(fixtures, verdicts) {
            #expect(verdict.hasPrefix("invalid") == fixture.schemaRejects, "\(fixture.name): \(verdict)")
            #expect(throws: ScenarioError.self, "\(fixture.name)") {
                try Scenario.decode(from: Data(fixture.json.utf8))
            }
        }
    }

    @Test(
        "Canonical encodings of the fixtures validate against the schema",
        .enabled(
            if: hasJSONSchema || OptionalTools.required,
            "skipped: needs Python's jsonschema; apt-get install python3-jsonschema (or pip install jsonschema)"
        )
    )
    func encodedScenariosValidate() async throws {
        let documents = try ([ScenarioFixtures.newsDay] + ScenarioFixtures.validVariants).map {
            String(decoding: try Scenario.decode(from: Data($0.utf8)).jsonData(), as: UTF8.self)
        }
        #expect(try await Self.schemaVerdicts(documents).allSatisfy { $0 == "valid" })
    }
}
