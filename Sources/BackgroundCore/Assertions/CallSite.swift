/// Where in the app's source an assertion was begun: `#fileID`, `#line` and `#function`.
///
/// Captured by default arguments at the call site, so a termination report can say exactly
/// which line leaked. Locations captured from literals keep their `StaticString`s and only turn
/// into `String`s when read, which keeps `beginBackgroundTask` free of allocations for them.
public struct CallSite: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Text received from elsewhere, boxed so that a literal call site stays trivially copyable.
    private final class Text: Sendable {
        let fileID: String
        let function: String

        init(fileID: String, function: String) {
            self.fileID = fileID
            self.function = function
        }
    }

    private let fileLiteral: StaticString
    private let functionLiteral: StaticString
    private let text: Text?

    /// The line number, 1-based; 0 when unknown.
    public let line: UInt

    /// Creates a location from the compiler's literals; use as a default argument.
    ///
    /// ```swift
    /// func begin(fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function) {
    ///     let origin = CallSite(fileID: fileID, line: line, function: function)
    /// }
    /// ```
    public init(fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function) {
        self.fileLiteral = fileID
        self.functionLiteral = function
        self.text = nil
        self.line = line
    }

    /// Creates a location from text, for example one received from another process.
    public init(fileIDText: String, line: UInt, functionText: String) {
        self.fileLiteral = ""
        self.functionLiteral = ""
        self.text = Text(fileID: fileIDText, function: functionText)
        self.line = line
    }

    /// A location for calls whose origin could not be captured (for example through a protocol).
    public static let unknown = CallSite(fileIDText: "<unknown>", line: 0, functionText: "<unknown>")

    /// The `#fileID` of the call site: `Module/File.swift`.
    public var fileID: String { text?.fileID ?? fileLiteral.description }

    /// The `#function` of the call site, for example `uploadPendingData()`.
    public var function: String { text?.function ?? functionLiteral.description }

    /// The module part of the file ID (`Module` in `Module/File.swift`).
    public var module: String {
        let file = fileID
        guard let slash = file.firstIndex(of: "/") else { return file }
        return String(file[..<slash])
    }

    /// `File.swift:42 in function()`.
    public var description: String { ControlCharacters.escaped("\(fileID):\(line) in \(function)") }

    public static func == (lhs: CallSite, rhs: CallSite) -> Bool {
        lhs.line == rhs.line && lhs.fileID == rhs.fileID && lhs.function == rhs.function
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fileID)
        hasher.combine(line)
        hasher.combine(function)
    }

    private enum CodingKeys: String, CodingKey { case fileID, line, function }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            fileIDText: try container.decode(String.self, forKey: .fileID),
            line: try container.decode(UInt.self, forKey: .line),
            functionText: try container.decode(String.self, forKey: .function)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fileID, forKey: .fileID)
        try container.encode(line, forKey: .line)
        try container.encode(function, forKey: .function)
    }
}
