import BackgroundDoctor
import Foundation
import Testing

/// Each rule fires on the fixture written to show it, at the right place, and nothing else does;
/// the correct app (constants, enum raw values and bundle-identifier interpolation included)
/// has no finding at all.
@Suite("bgctl doctor: every rule fires on its fixture and not on a correct app")
struct DoctorRuleTests {
    @Test("a correct app has no findings (identifiers from static lets, enums and the bundle identifier)")
    func correctApp() throws {
        let report = try DoctorFixtures.examine("correct")
        #expect(report.findings.isEmpty, "\(report.renderText())")
        #expect(report.sourceFiles == 5)
        #expect(report.exitCode == 0)
    }

    @Test("the correct app's manifest as a binary property list and as JSON gives no findings either")
    func correctAppOtherFormats() throws {
        let xml = try Data(contentsOf: URL(filePath: try #require(DoctorFixtures.manifest("correct"))))
        let plist = try PropertyListSerialization.propertyList(from: xml, format: nil)
        let directory = FileManager.default.temporaryDirectory.appending(path: "doctor-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = directory.appending(path: "Info.plist")
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: binary)
        let json = directory.appending(path: "Info.json")
        try JSONSerialization.data(withJSONObject: plist).write(to: json)
        for manifest in [binary, json] {
            let report = try Doctor.examine(manifest: manifest.path, sources: [DoctorFixtures.sources("correct")])
            #expect(report.findings.isEmpty, "\(manifest.lastPathComponent): \(report.renderText())")
        }
    }

    @Test(
        "each fixture gives exactly its findings",
        arguments: [
            // BGD001: an enum raw value not listed; a continued request named as the wildcard's bare prefix.
            (
                "not-permitted",
                [
                    "BGD001 AppDelegate.swift:18", "BGD001 AppDelegate.swift:26", "BGD001 AppDelegate.swift:34",
                    "BGD001 AppDelegate.swift:37", "BGD002 Info.plist:10",
                ]
            ),
            ("never-registered", ["BGD002 Info.plist:10"]),
            // An interpolated identifier never registered; a concrete identifier under a registered pattern.
            (
                "submitted-not-registered",
                ["BGD003 BackgroundScheduler.swift:23", "BGD003 BackgroundScheduler.swift:29", "BGD002 Info.plist:10"]
            ),
            ("missing-mode", ["BGD004 AppDelegate.swift:29"]),
            ("wrong-type", ["BGD005 Info.plist:7", "BGD005 Info.plist:12"]),
            // In a Task, in a helper called from sceneDidBecomeActive, after an await, in a view's .onAppear;
            // not in didFinishLaunching itself.
            (
                "late-registration",
                [
                    "BGD006 AppDelegate.swift:22", "BGD006 AppDelegate.swift:34", "BGD006 AppDelegate.swift:43",
                    "BGD006 ContentView.swift:10",
                ]
            ),
            ("fetch-disabled", ["BGD007 AppDelegate.swift:10"]),
            ("unknown-mode", ["BGD008 Info.json:7", "BGD008 Info.json:8", "BGD008 Info.json:9"]),
            // A stored identifier ended under another name; a discarded identifier. Cache ends its own.
            ("never-ended", ["BGD009 SyncService.swift:8", "BGD009 SyncService.swift:18"]),
            ("unresolved", ["BGD010 BackgroundSDK.swift:6", "BGD010 BackgroundSDK.swift:13", "BGD002 Info.plist:9"]),
            ("duplicate", ["BGD011 Registrations.swift:21"]),
            ("wildcard-form", ["BGD012 Info.plist:10"]),
            ("cancel-unknown", ["BGD013 AppDelegate.swift:23"]),
        ]
    )
    func fixture(name: String, expected: [String]) throws {
        let report = try DoctorFixtures.examine(name)
        #expect(DoctorFixtures.summary(report).sorted() == expected.sorted(), "\(report.renderText())")
    }

    @Test("every rule has a fixture that makes it fire")
    func everyRuleFires() throws {
        let names = [
            "not-permitted", "never-registered", "submitted-not-registered", "missing-mode", "wrong-type",
            "late-registration", "fetch-disabled", "unknown-mode", "never-ended", "unresolved", "duplicate",
            "wildcard-form", "cancel-unknown",
        ]
        var fired: Set<String> = []
        for name in names { fired.formUnion(try DoctorFixtures.examine(name).findings.map(\.rule.id)) }
        #expect(fired == Set(DoctorRule.all.map(\.id)))
    }

    @Test("findings carry Apple's exact message and the fix")
    func appleMessages() throws {
        let submitted = try DoctorFixtures.examine("submitted-not-registered").findings.first { $0.rule.id == "BGD003" }
        #expect(
            submitted?.appleBehaviour.contains(
                "\"No launch handler registered for task with identifier com.example.photos.backup\""
            ) == true
        )
        let late = try DoctorFixtures.examine("late-registration").findings.first
        #expect(
            late?.appleBehaviour.contains(
                "\"All launch handlers must be registered before application finishes launching\""
            )
                == true
        )
        let duplicate = try DoctorFixtures.examine("duplicate").findings.first
        #expect(
            duplicate?.appleBehaviour.contains(
                "\"Launch handler for task with identifier com.example.shop.refresh has already been registered\""
            ) == true
        )
        let mode = try DoctorFixtures.examine("missing-mode").findings.first
        #expect(mode?.appleBehaviour.contains("notPermitted (code 3") == true)
        #expect(mode?.fix == "add <string>processing</string> to UIBackgroundModes in Info.plist")
        let misspelled = try DoctorFixtures.examine("unknown-mode").findings.first
        #expect(misspelled?.message.contains("did you mean 'processing'?") == true)
    }

    @Test("--ignore silences a rule by identifier or name, and the exit code follows what is left")
    func ignoring() throws {
        let all = try DoctorFixtures.examine("not-permitted")
        #expect(all.exitCode == 2)
        let withoutErrors = try DoctorFixtures.examine("not-permitted", ignoring: ["BGD001"])
        #expect(DoctorFixtures.summary(withoutErrors) == ["BGD002 Info.plist:10"])
        #expect(withoutErrors.exitCode == 1)
        #expect(withoutErrors.ignoredRules == ["BGD001"])
        let nothing = try DoctorFixtures.examine("not-permitted", ignoring: ["BGD001", "permitted-never-registered"])
        #expect(nothing.findings.isEmpty)
        #expect(nothing.exitCode == 0)
        let notes = try DoctorFixtures.examine("cancel-unknown")
        #expect(notes.worstSeverity == .note)
        #expect(notes.exitCode == 0)
    }

    @Test("a missing manifest is exit 66, a malformed one 65")
    func badInput() throws {
        #expect(throws: DoctorError.self) { try Doctor.examine(manifest: "/nonexistent/Info.plist", sources: []) }
        do {
            _ = try Doctor.examine(manifest: "/nonexistent/Info.plist", sources: [])
        } catch {
            #expect(error.exitCode == 66)
        }
        let file = FileManager.default.temporaryDirectory.appending(path: "doctor-\(UUID()).plist")
        try Data("<plist><dict><key>CFBundleIdentifier</key>".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            _ = try Doctor.examine(manifest: file.path, sources: [])
            Issue.record("a malformed manifest was accepted")
        } catch {
            #expect(error.exitCode == 65)
            #expect(error.description.contains(file.lastPathComponent))
        }
    }
}
