public import BackgroundCore
public import Foundation

extension AppManifest {
    /// The largest manifest accepted, in bytes: 1 MiB. Real `Info.plist` files are a few KiB.
    public static let maximumManifestSize = 1 << 20

    /// The most entries `BGTaskSchedulerPermittedIdentifiers` may have.
    public static let maximumPermittedTaskIdentifiers = 1000

    /// Loads a manifest from an `Info.plist` (XML or binary) or a JSON file with the same keys.
    ///
    /// The format is detected from the content (see ``ManifestFormat/detect(in:)``), not from the
    /// file name. Errors carry the file name, so they print as
    /// `Info.plist: UIBackgroundModes: expected an array of strings, found a string`.
    ///
    /// ```swift
    /// let manifest = try AppManifest(contentsOf: URL(filePath: "App/Info.plist"))
    /// for warning in manifest.warnings() { print("warning: \(warning)") }
    /// ```
    ///
    /// - Throws: ``ManifestError`` with code ``ManifestError/Code/unreadable`` if the file cannot
    ///   be read, ``ManifestError/Code/invalidValue`` if it is larger than
    ///   ``maximumManifestSize``, and otherwise the errors of ``init(data:format:)``.
    public init(contentsOf url: URL) throws(ManifestError) {
        let name = url.lastPathComponent
        do throws(ManifestError) {
            let data = try ManifestFileReader.contents(of: url, limit: Self.maximumManifestSize)
            try self.init(data: data)
        } catch {
            var error = error
            error.file = name
            throw error
        }
    }

    /// Loads a manifest from property-list or JSON data.
    ///
    /// Keys read: `CFBundleIdentifier` (required), `BGTaskSchedulerPermittedIdentifiers` and
    /// `UIBackgroundModes` (optional arrays of strings), `UIApplicationSceneManifest` (optional: a
    /// scene-based app, ``SceneManifest``); other keys are ignored. Values that are
    /// legal but inconsistent (a permitted identifier without the `fetch` or `processing` mode)
    /// are not errors: see ``AppManifest/warnings()``.
    ///
    /// ```swift
    /// let json = Data(#"{"CFBundleIdentifier": "com.example.notes", "UIBackgroundModes": ["fetch"]}"#.utf8)
    /// let manifest = try AppManifest(data: json)
    /// manifest.backgroundModes   // [.fetch]
    /// ```
    ///
    /// - Parameters:
    ///   - data: The document.
    ///   - format: The expected format; nil detects it from the content.
    /// - Throws: ``ManifestError``: ``ManifestError/Code/invalidValue`` if the data is larger than
    ///   ``maximumManifestSize``; ``ManifestError/Code/malformed`` if it is not a document of the
    ///   format; ``ManifestError/Code/notADictionary``; and, for the key concerned,
    ///   ``ManifestError/Code/missingKey``, ``ManifestError/Code/wrongType``,
    ///   ``ManifestError/Code/invalidValue`` or ``ManifestError/Code/duplicateValue``.
    public init(data: Data, format: ManifestFormat? = nil) throws(ManifestError) {
        guard data.count <= Self.maximumManifestSize else {
            throw ManifestError(
                code: .invalidValue,
                key: nil,
                problem:
                    "the manifest is \(data.count) bytes, more than the \(Self.maximumManifestSize) (1 MiB) allowed"
            )
        }
        let root: Any
        do {
            root = try Self.parseDocument(data, as: format ?? ManifestFormat.detect(in: data))
        } catch {
            throw format == nil ? Self.noFormatFits(data, else: error) : error
        }
        guard let dictionary = root as? [AnyHashable: Any] else {
            throw ManifestError(
                code: .notADictionary,
                key: nil,
                problem: "the top level must be a dictionary, not \(ManifestReader.typeDescription(of: root))"
            )
        }
        let reader = ManifestReader(dictionary: dictionary)
        let app = try reader.bundleIdentifier()
        let identifiers = try reader.permittedTaskIdentifiers(of: app)
        self.init(
            bundleIdentifier: app,
            permittedTaskIdentifiers: identifiers ?? [],
            backgroundModes: try reader.backgroundModes(),
            declaresTaskSchedulerIdentifiers: identifiers != nil,
            sceneManifest: try reader.sceneManifest()
        )
    }

    /// Parses `data` as `format`, and fails if it is not a document of that format.
    private static func parseDocument(_ data: Data, as format: ManifestFormat) throws(ManifestError) -> Any {
        if format == .json {
            do {
                return try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
            } catch {
                throw malformed("not valid JSON: \(parserMessage(error))")
            }
        }
        // The parser reads any data that starts with the binary magic as binary, whatever was asked
        // for; some damaged binary lists crash it, so they are screened first.
        if data.starts(with: Array("bplist".utf8)), let problem = BinaryPropertyListScreen.problem(in: data) {
            throw malformed("\(ManifestFormat.binaryPropertyList) that cannot be loaded: \(problem)")
        }
        if !data.starts(with: Array("bplist".utf8)), let problem = XMLPropertyListScreen.problem(in: data) {
            throw malformed("\(ManifestFormat.xmlPropertyList) that cannot be loaded: \(problem)")
        }
        var found = PropertyListSerialization.PropertyListFormat.xml
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: &found)
        } catch {
            // A damaged binary list is retried as text, so the parser's message is about text.
            let detail = format == .binaryPropertyList ? "" : ": \(parserMessage(error))"
            throw malformed("not \(format)\(detail)")
        }
        // The parser falls back from XML and binary to the old OpenStep text format, in which
        // almost any text is a string: a damaged file can "parse". Only the expected format counts.
        switch (format, found) {
        case (.xmlPropertyList, .xml), (.binaryPropertyList, .binary):
            return root
        case (_, .xml):
            throw malformed("\(ManifestFormat.xmlPropertyList), not \(format)")
        case (_, .binary):
            throw malformed("\(ManifestFormat.binaryPropertyList), not \(format)")
        default:
            throw malformed("not \(format)")
        }
    }

    /// When the format was guessed and the data looks like none of the three (empty, or not
    /// starting with `bplist`, `<`, `{` or `[`), the error says which formats were tried and why
    /// each one failed, instead of "not valid JSON".
    private static func noFormatFits(_ data: Data, else error: ManifestError) -> ManifestError {
        let text = data.drop { byte in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        if text.isEmpty {
            return malformed(
                "the file is empty; a manifest is an XML or binary property list or a JSON document"
            )
        }
        guard let first = text.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "["),
            ManifestFormat.detect(in: data) == .json
        else { return error }
        let json = error.problem.hasPrefix("not valid JSON: ") ? String(error.problem.dropFirst(16)) : error.problem
        return malformed(
            "not a manifest in any format: tried \(ManifestFormat.binaryPropertyList) (it does not start "
                + "with \"bplist\"), \(ManifestFormat.xmlPropertyList) (it does not start with \"<\") and "
                + "\(ManifestFormat.json) (\(json))"
        )
    }

    private static func malformed(_ problem: String) -> ManifestError {
        ManifestError(code: .malformed, key: nil, problem: problem)
    }

    /// The parser's own explanation, such as `Value missing for key inside <dict> at line 7`.
    private static func parserMessage(_ error: any Error) -> String {
        let error = error as NSError
        return error.userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
    }
}
