import BackgroundCore
import BackgroundExecution
import Foundation
import Testing

@Suite("App manifest: errors")
struct AppManifestErrorTests {
    private typealias Fixtures = ManifestFixtures
    private let permitted = "BGTaskSchedulerPermittedIdentifiers"

    // MARK: Files

    @Test("A missing file is unreadable, with errno ENOENT and the file name in the description")
    func missingFile() throws {
        let directory = try TemporaryManifestDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("Info.plist")
        let error = try #require(throws: ManifestError.self) { try AppManifest(contentsOf: url) }
        #expect(error.code == .unreadable)
        #expect(error.posixErrorCode == ENOENT)
        #expect(error.file == "Info.plist")
        #expect(error.key == nil)
        #expect(error.description.hasPrefix("Info.plist: cannot be opened: "))
        #expect(error.description.hasSuffix("(errno \(ENOENT))"))
    }

    @Test("A directory is unreadable, with errno EISDIR")
    func directoryIsUnreadable() throws {
        let directory = try TemporaryManifestDirectory()
        defer { directory.remove() }
        let error = try #require(throws: ManifestError.self) { try AppManifest(contentsOf: directory.url) }
        #expect(error.code == .unreadable)
        #expect(error.posixErrorCode == EISDIR)
    }

    @Test("A URL that is not a file URL is unreadable")
    func remoteURLIsUnreadable() throws {
        let url = try #require(URL(string: "https://example.com/Info.plist"))
        let error = try #require(throws: ManifestError.self) { try AppManifest(contentsOf: url) }
        #expect(error.code == .unreadable)
        #expect(error.description.contains("only file URLs"))
    }

    @Test("Errors found in a file's content carry the file name")
    func contentErrorsNameTheFile() throws {
        let directory = try TemporaryManifestDirectory()
        defer { directory.remove() }
        let url = try directory.write(Fixtures.rawPlist(""), to: "Info.plist")
        let error = try #require(throws: ManifestError.self) { try AppManifest(contentsOf: url) }
        #expect(error.code == .missingKey)
        #expect(error.description.hasPrefix("Info.plist: CFBundleIdentifier: "))
    }

    // MARK: Size

    @Test("Data larger than 1 MiB is rejected as invalidValue before it is parsed")
    func dataOverLimit() throws {
        var data = Fixtures.plist("")
        data.append(Data(repeating: UInt8(ascii: " "), count: AppManifest.maximumManifestSize + 1 - data.count))
        let error = try Fixtures.error(loading: data)
        #expect(error.code == .invalidValue)
        #expect(error.key == nil)
        #expect(error.description.contains("1048577 bytes"))
        #expect(error.description.contains("1 MiB"))
    }

    @Test("A file larger than 1 MiB is rejected as invalidValue, naming the file")
    func fileOverLimit() throws {
        let directory = try TemporaryManifestDirectory()
        defer { directory.remove() }
        let url = try directory.write(Data(repeating: UInt8(ascii: " "), count: 2 << 20), to: "Huge.plist")
        let error = try #require(throws: ManifestError.self) { try AppManifest(contentsOf: url) }
        #expect(error.code == .invalidValue)
        #expect(error.description.hasPrefix("Huge.plist: the file is 2097152 bytes"))
        #expect(error.description.contains("1 MiB"))
    }

    @Test("More than 1000 permitted identifiers is invalidValue on BGTaskSchedulerPermittedIdentifiers")
    func tooManyIdentifiers() throws {
        let ids = (0...1000).map { "com.example.app.task\($0)" }
        let error = try Fixtures.error(loading: Fixtures.plist(Fixtures.stringArray(permitted, ids)))
        #expect(error.code == .invalidValue)
        #expect(error.key == permitted)
        #expect(error.description == "\(permitted): lists 1001 identifiers; at most 1000 are allowed")
    }

    // MARK: Documents

    @Test("A broken XML plist is malformed, with the parser's message")
    func malformedXML() throws {
        let error = try Fixtures.error(loading: Data("<plist><dict><key>a</key></dict></plist>".utf8))
        #expect(error.code == .malformed)
        #expect(error.key == nil)
        #expect(error.problem.hasPrefix("not an XML property list: "))
        #expect(error.problem.count > "not an XML property list: ".count)
    }

    @Test("Text the parser would read as an old-style OpenStep plist is not accepted as XML")
    func openStepFallbackIsMalformed() throws {
        let error = try Fixtures.error(loading: Data("<0fa1>".utf8))
        #expect(error.code == .malformed)
        #expect(error.problem == "not an XML property list")
    }

    @Test("A damaged binary plist is malformed")
    func malformedBinary() throws {
        let error = try Fixtures.error(loading: Data("bplist00garbage".utf8))
        #expect(error.code == .malformed)
        #expect(error.problem.contains("binary property list"))
    }

    @Test("Broken JSON is malformed, with the parser's message")
    func malformedJSON() throws {
        let error = try Fixtures.error(loading: Data(#"{"CFBundleIdentifier": "#.utf8))
        #expect(error.code == .malformed)
        #expect(error.problem.hasPrefix("not valid JSON: "))
    }

    @Test(
        "Garbage text, random bytes or an empty file: the error names every format tried, not only JSON",
        arguments: [
            Data("hello, this is not a plist".utf8),
            Data([0x00, 0x9F, 0x13, 0xFF, 0x42, 0x07, 0x80, 0xC3]),
        ]
    )
    func noFormatFits(data: Data) throws {
        let error = try Fixtures.error(loading: data)
        #expect(error.code == .malformed)
        #expect(error.problem.hasPrefix("not a manifest in any format: tried a binary property list"), "\(error)")
        #expect(error.problem.contains("an XML property list (it does not start with \"<\")"))
        #expect(error.problem.contains("a JSON document ("))
        #expect(!error.problem.hasPrefix("not valid JSON"))
    }

    @Test("An empty (or blank) manifest says it is empty")
    func emptyManifest() throws {
        for data in [Data(), Data(" \n\t".utf8)] {
            let error = try Fixtures.error(loading: data)
            #expect(error.code == .malformed)
            #expect(
                error.problem == "the file is empty; a manifest is an XML or binary property list or a JSON document"
            )
        }
    }

    @Test("A document of another format than the one asked for is malformed")
    func formatMismatch() throws {
        let error = try Fixtures.error(loading: Data(ManifestFixtures.xml.utf8), format: .binaryPropertyList)
        #expect(error.code == .malformed)
        #expect(error.problem == "an XML property list, not a binary property list")
        let json = try Fixtures.error(loading: Data(ManifestFixtures.xml.utf8), format: .json)
        #expect(json.code == .malformed)
    }

    @Test("A top level that is not a dictionary is notADictionary, naming what it is")
    func notADictionary() throws {
        let array = try Fixtures.error(loading: Data("<plist><array><string>a</string></array></plist>".utf8))
        #expect(array.code == .notADictionary)
        #expect(array.description == "the top level must be a dictionary, not an array")
        let string = try Fixtures.error(loading: Data(#""com.example.app""#.utf8))
        #expect(string.code == .notADictionary)
        #expect(string.description.hasSuffix("not a string"))
    }

    // MARK: Keys

    @Test("A missing CFBundleIdentifier is missingKey, and the message names the key")
    func missingBundleIdentifier() throws {
        let error = try Fixtures.error(loading: Fixtures.rawPlist(Fixtures.stringArray("UIBackgroundModes", ["fetch"])))
        #expect(error.code == .missingKey)
        #expect(error.key == "CFBundleIdentifier")
        #expect(error.description.hasPrefix("CFBundleIdentifier: the key is missing"))
    }

    @Test("A CFBundleIdentifier that is not a string is wrongType, naming what it is")
    func bundleIdentifierWrongType() throws {
        let number = try Fixtures.error(loading: Fixtures.rawPlist("<key>CFBundleIdentifier</key><integer>7</integer>"))
        #expect(number.code == .wrongType)
        #expect(number.description == "CFBundleIdentifier: expected a string, found a number")
        let boolean = try Fixtures.error(loading: Data(#"{"CFBundleIdentifier": true}"#.utf8))
        #expect(boolean.description == "CFBundleIdentifier: expected a string, found a Boolean")
    }

    @Test("UIBackgroundModes and BGTaskSchedulerPermittedIdentifiers must be arrays: wrongType on the key")
    func listsWrongType() throws {
        let modes = try Fixtures.error(loading: Fixtures.plist("<key>UIBackgroundModes</key><string>fetch</string>"))
        #expect(modes.code == .wrongType)
        #expect(modes.description == "UIBackgroundModes: expected an array of strings, found a string")
        let ids = try Fixtures.error(loading: Fixtures.plist("<key>\(permitted)</key><dict/>"))
        #expect(ids.code == .wrongType)
        #expect(ids.description == "\(permitted): expected an array of strings, found a dictionary")
    }

    @Test("A list element that is not a string is wrongType on its key path, such as UIBackgroundModes[1]")
    func elementWrongType() throws {
        let modes = try Fixtures.error(
            loading: Fixtures.plist("<key>UIBackgroundModes</key><array><string>fetch</string><true/></array>")
        )
        #expect(modes.code == .wrongType)
        #expect(modes.key == "UIBackgroundModes[1]")
        #expect(modes.description == "UIBackgroundModes[1]: expected a string, found a Boolean")
        let json = #"{"CFBundleIdentifier": "a.b", "BGTaskSchedulerPermittedIdentifiers": ["a.b.c", null]}"#
        let ids = try Fixtures.error(loading: Data(json.utf8))
        #expect(ids.key == "\(permitted)[1]")
        #expect(ids.description == "\(permitted)[1]: expected a string, found null")
    }

    @Test(
        "A CFBundleIdentifier with characters other than letters, digits, '-' and '.', or with empty components, is invalidValue",
        arguments: ["", "com.foo app", "com.foo_app", "com.föö.app", ".com.foo", "com.foo.", "com..foo", "com/foo"]
    )
    func invalidBundleIdentifier(_ value: String) throws {
        let error = try Fixtures.error(loading: Fixtures.plist(app: value, ""))
        #expect(error.code == .invalidValue)
        #expect(error.key == "CFBundleIdentifier")
        #expect(error.description.hasPrefix("CFBundleIdentifier: "))
    }

    @Test("An invalid CFBundleIdentifier's message quotes it and names the rule it breaks")
    func bundleIdentifierMessages() throws {
        let space = try Fixtures.error(loading: Fixtures.plist(app: "com.foo app", ""))
        #expect(
            space.description == #"CFBundleIdentifier: "com.foo app" is not a valid bundle identifier: "#
                + "it contains a space; use only letters, digits, hyphens and dots"
        )
        let dot = try Fixtures.error(loading: Fixtures.plist(app: "com.foo.", ""))
        #expect(dot.problem.hasSuffix("it must not start or end with a dot"))
    }

    @Test("A '*' anywhere but a trailing '.*' after a component is invalidValue, with the example wildcard")
    func misplacedWildcard() throws {
        let directory = try TemporaryManifestDirectory()
        defer { directory.remove() }
        let ids = ["com.example.app.refresh", "com.example.app.cleanup", "*"]
        let url = try directory.write(Fixtures.plist(Fixtures.stringArray(permitted, ids)), to: "Info.plist")
        let error = try #require(throws: ManifestError.self) { try AppManifest(contentsOf: url) }
        #expect(error.code == .invalidValue)
        #expect(error.key == "\(permitted)[2]")
        #expect(
            error.description == #"Info.plist: BGTaskSchedulerPermittedIdentifiers[2]: "*" is not a valid "#
                + "identifier: a wildcard must follow a dot at the end, as in com.example.app.export.*"
        )
    }

    @Test(
        "Wildcards in the middle, without a dot, alone or after an empty component are invalidValue",
        arguments: [".*", "com.*.app", "com.foo*", "com.foo.*x", "com.foo.**", "*.com.foo", "com..*", ".com.*"]
    )
    func invalidWildcards(_ value: String) throws {
        let error = try Fixtures.error(loading: Fixtures.plist(Fixtures.stringArray(permitted, ["a.b", value])))
        #expect(error.code == .invalidValue)
        #expect(error.key == "\(permitted)[1]")
        #expect(error.problem.hasPrefix(String(reflecting: value) + " is not a valid identifier: "))
    }

    @Test("An empty permitted identifier is invalidValue on its key path")
    func emptyIdentifier() throws {
        let error = try Fixtures.error(loading: Fixtures.plist(Fixtures.stringArray(permitted, ["a.b", ""])))
        #expect(error.code == .invalidValue)
        #expect(error.description == "\(permitted)[1]: must not be empty")
    }

    @Test("A permitted identifier listed twice is duplicateValue on the second, naming the first")
    func duplicateIdentifier() throws {
        let ids = ["com.example.app.refresh", "com.example.app.cleanup", "com.example.app.refresh"]
        let error = try Fixtures.error(loading: Fixtures.plist(Fixtures.stringArray(permitted, ids)))
        #expect(error.code == .duplicateValue)
        #expect(error.key == "\(permitted)[2]")
        #expect(
            error.description == #"\#(permitted)[2]: "com.example.app.refresh" is already listed at \#(permitted)[0]"#
        )
    }

    @Test("Long values are shortened in messages, and control characters escaped")
    func longValuesShortened() throws {
        let long = "com." + String(repeating: "x", count: 5000) + " "
        let error = try Fixtures.error(loading: Fixtures.plist(app: long, ""))
        #expect(error.description.count < 300)
        let json = #"{"CFBundleIdentifier": "com.foo\napp"}"#
        let newline = try Fixtures.error(loading: Data(json.utf8))
        #expect(newline.description.contains(#""com.foo\napp""#))
        #expect(newline.description.contains(#"'\n'"#))
    }
}
