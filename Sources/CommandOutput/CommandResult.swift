public import ArgumentParser
public import Foundation

/// A command's answer: human text by default, JSON with `--json`.
///
/// Every command that prints state or results returns one through ``OutputOptions/emit(_:)``,
/// so both forms come from the same value.
public protocol CommandResult: Encodable {
    /// The answer as a person reads it, ending with a newline.
    var text: String { get }
}

/// `--json`: shared by every command that prints state or results.
public struct OutputOptions: ParsableArguments, Sendable {
    /// Print the answer as one JSON document instead of text.
    @Flag(help: "Print the result as JSON (one document on standard output) instead of text.")
    public var json = false

    /// Options with their defaults.
    public init() {}

    /// Prints `result` on standard output, as text or JSON.
    public func emit(_ result: some CommandResult) throws {
        let output = try render(result)
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    /// The text `emit` prints.
    public func render(_ result: some CommandResult) throws -> String {
        guard json else { return result.text }
        return String(decoding: try Self.encoder.encode(result), as: UTF8.self) + "\n"
    }

    /// The project's JSON style: sorted keys, ISO 8601 dates, pretty-printed.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
