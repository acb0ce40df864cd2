import BackgroundCore
import BackgroundExecution
import Foundation
import Testing

@Suite("App manifest: loading")
struct AppManifestLoadingTests {
    @Test("An XML plist, a binary plist and a JSON file with the same keys give equal manifests")
    func formatsAgree() throws {
        let xml = try AppManifest(data: Data(ManifestFixtures.xml.utf8))
        let json = try AppManifest(data: Data(ManifestFixtures.json.utf8))
        let root = try PropertyListSerialization.propertyList(from: Data(ManifestFixtures.xml.utf8), format: nil)
        let binaryData = try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
        let binary = try AppManifest(data: binaryData)
        #expect(xml == ManifestFixtures.expected)
        #expect(json == ManifestFixtures.expected)
        #expect(binary == ManifestFixtures.expected)
    }

    @Test("A binary plist written by PropertyListSerialization on this platform starts with bplist00 and reads back")
    func binaryPlistRoundTrip() throws {
        let root: [String: Any] = [
            "CFBundleIdentifier": "com.foo.app",
            "BGTaskSchedulerPermittedIdentifiers": ["com.foo.app.refresh"],
            "UIBackgroundModes": ["fetch"],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
        #expect(data.starts(with: Array("bplist00".utf8)))
        #expect(ManifestFormat.detect(in: data) == .binaryPropertyList)
        let manifest = try AppManifest(data: data, format: .binaryPropertyList)
        #expect(manifest.permittedTaskIdentifiers == ["com.foo.app.refresh"])
        #expect(manifest.backgroundModes == [.fetch])
    }

    @Test("The format is detected from the content: bplist magic, '<' after a BOM and white space, else JSON")
    func formatDetection() {
        #expect(ManifestFormat.detect(in: Data("bplist00xyz".utf8)) == .binaryPropertyList)
        #expect(ManifestFormat.detect(in: Data("<?xml version=\"1.0\"?>".utf8)) == .xmlPropertyList)
        #expect(ManifestFormat.detect(in: Data("\u{FEFF}\n  <plist>".utf8)) == .xmlPropertyList)
        #expect(ManifestFormat.detect(in: Data(" {\"a\": 1}".utf8)) == .json)
        #expect(ManifestFormat.detect(in: Data()) == .json)
    }

    @Test("Loading from a file detects the format by content, whatever the file is called")
    func loadsFilesByContent() throws {
        let directory = try TemporaryManifestDirectory()
        defer { directory.remove() }
        let xml = try directory.write(Data(ManifestFixtures.xml.utf8), to: "manifest.json")
        let json = try directory.write(Data(ManifestFixtures.json.utf8), to: "Info.plist")
        #expect(try AppManifest(contentsOf: xml) == ManifestFixtures.expected)
        #expect(try AppManifest(contentsOf: json) == ManifestFixtures.expected)
    }

    @Test("Permitted identifiers keep their file order")
    func keepsOrder() throws {
        let ids = ["z.last", "a.first", "m.middle"]
        let data = ManifestFixtures.plist(ManifestFixtures.stringArray("BGTaskSchedulerPermittedIdentifiers", ids))
        #expect(try AppManifest(data: data).permittedTaskIdentifiers == ids)
    }

    @Test("Unknown UIBackgroundModes strings are kept, so that tools can warn about them")
    func keepsUnknownModes() throws {
        let data = ManifestFixtures.plist(ManifestFixtures.stringArray("UIBackgroundModes", ["fetch", "teleport"]))
        let manifest = try AppManifest(data: data)
        #expect(manifest.backgroundModes == [.fetch, BackgroundMode(rawValue: "teleport")])
        #expect(manifest.backgroundModes.filter { !$0.isKnown } == [BackgroundMode(rawValue: "teleport")])
    }

    @Test("Every known mode string maps to its static member")
    func knownModeStrings() throws {
        let strings = [
            "fetch", "processing", "audio", "location", "voip", "remote-notification", "external-accessory",
            "bluetooth-central", "bluetooth-peripheral", "newsstand-content", "nearby-interaction", "push-to-talk",
        ]
        let data = ManifestFixtures.plist(ManifestFixtures.stringArray("UIBackgroundModes", strings))
        #expect(try AppManifest(data: data).backgroundModes == Set(BackgroundMode.known))
        #expect(BackgroundMode.known.map(\.rawValue) == strings)
    }

    @Test("declaresTaskSchedulerIdentifiers is true for an empty BGTaskSchedulerPermittedIdentifiers array")
    func emptyArrayDeclares() throws {
        let manifest = try AppManifest(
            data: ManifestFixtures.plist("<key>BGTaskSchedulerPermittedIdentifiers</key><array/>")
        )
        #expect(manifest.declaresTaskSchedulerIdentifiers)
        #expect(manifest.permittedTaskIdentifiers.isEmpty)
        let json = try AppManifest(
            data: Data(#"{"CFBundleIdentifier": "a.b", "BGTaskSchedulerPermittedIdentifiers": []}"#.utf8)
        )
        #expect(json.declaresTaskSchedulerIdentifiers)
    }

    @Test("declaresTaskSchedulerIdentifiers is false when BGTaskSchedulerPermittedIdentifiers is absent")
    func absentKeyDoesNotDeclare() throws {
        let manifest = try AppManifest(data: ManifestFixtures.plist(""))
        #expect(!manifest.declaresTaskSchedulerIdentifiers)
        #expect(manifest == AppManifest(bundleIdentifier: "com.example.app"))
    }

    @Test("A manifest that lists identifiers always declares the key, however it was built")
    func listingImpliesDeclaring() {
        var manifest = AppManifest(bundleIdentifier: "com.example.app")
        manifest.permittedTaskIdentifiers = ["com.example.app.refresh"]
        #expect(manifest.declaresTaskSchedulerIdentifiers)
        manifest.declaresTaskSchedulerIdentifiers = false
        #expect(manifest.declaresTaskSchedulerIdentifiers)
        manifest.permittedTaskIdentifiers = []
        #expect(manifest.declaresTaskSchedulerIdentifiers)
        manifest.declaresTaskSchedulerIdentifiers = false
        #expect(!manifest.declaresTaskSchedulerIdentifiers)
    }

    @Test("A manifest encodes with Info.plist keys: PropertyListEncoder and JSONEncoder output loads back equal")
    func codableUsesInfoPlistKeys() throws {
        let empty = AppManifest(bundleIdentifier: "com.example.app", declaresTaskSchedulerIdentifiers: true)
        for manifest in [ManifestFixtures.expected, empty, AppManifest(bundleIdentifier: "com.example.app")] {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .xml
            let plist = try encoder.encode(manifest)
            #expect(String(decoding: plist, as: UTF8.self).contains("<key>CFBundleIdentifier</key>"))
            #expect(try AppManifest(data: plist) == manifest)
            #expect(try PropertyListDecoder().decode(AppManifest.self, from: plist) == manifest)
            #expect(try AppManifest(data: JSONEncoder().encode(manifest)) == manifest)
        }
    }

    @Test("Other keys and a UTF-8 byte order mark are accepted")
    func toleratesOtherKeysAndBOM() throws {
        let data = Data("\u{FEFF}".utf8) + Data(ManifestFixtures.xml.utf8)
        #expect(try AppManifest(data: data) == ManifestFixtures.expected)
    }

    @Test("A wildcard entry after at least one component is accepted: com.foo.* and com.foo.app.continued.*")
    func acceptsWildcards() throws {
        let ids = ["com.foo.*", "com.foo.app.continued.*"]
        let data = ManifestFixtures.plist(ManifestFixtures.stringArray("BGTaskSchedulerPermittedIdentifiers", ids))
        #expect(try AppManifest(data: data).permittedTaskIdentifiers == ids)
    }

    @Test("Exactly 1000 permitted identifiers and a manifest of exactly 1 MiB are accepted")
    func acceptsLimits() throws {
        let ids = (0..<1000).map { "com.example.app.task\($0)" }
        let manifest = try AppManifest(
            data: ManifestFixtures.plist(ManifestFixtures.stringArray("BGTaskSchedulerPermittedIdentifiers", ids))
        )
        #expect(manifest.permittedTaskIdentifiers.count == 1000)

        var data = ManifestFixtures.plist("")
        data.append(Data(repeating: UInt8(ascii: " "), count: AppManifest.maximumManifestSize - data.count))
        #expect(data.count == 1 << 20)
        #expect(try AppManifest(data: data).bundleIdentifier == "com.example.app")
    }
}
