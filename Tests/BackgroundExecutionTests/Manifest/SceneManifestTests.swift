import BackgroundCore
import BackgroundExecution
import Foundation
import Testing

@Suite("App manifest: UIApplicationSceneManifest")
struct SceneManifestTests {
    static let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>com.example.notes</string>
        <key>UIApplicationSceneManifest</key><dict>
            <key>UIApplicationSupportsMultipleScenes</key><true/>
            <key>UISceneConfigurations</key><dict>
                <key>UIWindowSceneSessionRoleApplication</key><array>
                    <dict>
                        <key>UISceneConfigurationName</key><string>Default Configuration</string>
                        <key>UISceneDelegateClassName</key><string>$(PRODUCT_MODULE_NAME).SceneDelegate</string>
                        <key>UISceneStoryboardFile</key><string>Main</string>
                    </dict>
                    <dict>
                        <key>UISceneConfigurationName</key><string>Inspector</string>
                        <key>UISceneClassName</key><string>UIWindowScene</string>
                        <key>UISceneDelegateClassName</key><string>Notes.InspectorDelegate</string>
                    </dict>
                </array>
            </dict>
        </dict>
        </dict></plist>
        """

    @Test("Xcode's Info.plist keys load: multiple scenes, each role's configurations in file order")
    func loadsFromPropertyList() throws {
        let manifest = try AppManifest(data: Data(Self.plist.utf8))
        let scenes = try #require(manifest.sceneManifest)
        #expect(scenes.supportsMultipleScenes)
        #expect(scenes.configurations.map(\.name) == ["Default Configuration", "Inspector"])
        let role = SceneManifest.windowApplicationRole
        #expect(scenes.configuration(forRole: role)?.delegateClassName == "$(PRODUCT_MODULE_NAME).SceneDelegate")
        #expect(scenes.configuration(forRole: role)?.storyboardName == "Main")
        #expect(scenes.configuration(forRole: role, named: "Inspector")?.sceneClassName == "UIWindowScene")
        #expect(scenes.configuration(forRole: role, named: "Missing") == nil)
    }

    @Test("No key: an app without scenes")
    func absentKey() throws {
        let manifest = try AppManifest(data: Data(#"{"CFBundleIdentifier": "com.example.notes"}"#.utf8))
        #expect(manifest.sceneManifest == nil)
    }

    @Test("It encodes with Info.plist's key names and decodes back the same")
    func roundTrip() throws {
        let manifest = try AppManifest(data: Data(Self.plist.utf8))
        let encoded = try PropertyListEncoder().encode(manifest)
        #expect(try PropertyListDecoder().decode(AppManifest.self, from: encoded) == manifest)
        let json = try JSONEncoder().encode(manifest)
        #expect(String(decoding: json, as: UTF8.self).contains("UIApplicationSceneManifest"))
        #expect(try AppManifest(data: json) == manifest)
    }

    @Test(
        "Wrong types and empty names are typed errors naming the key path",
        arguments: [
            (#""UIApplicationSceneManifest": []"#, "UIApplicationSceneManifest", ManifestError.Code.wrongType),
            (
                #""UIApplicationSceneManifest": {"UIApplicationSupportsMultipleScenes": "yes"}"#,
                "UIApplicationSceneManifest.UIApplicationSupportsMultipleScenes", .wrongType
            ),
            (
                #""UIApplicationSceneManifest": {"UISceneConfigurations": {"UIWindowSceneSessionRoleApplication": {}}}"#,
                "UIApplicationSceneManifest.UISceneConfigurations.UIWindowSceneSessionRoleApplication", .wrongType
            ),
            (
                #""UIApplicationSceneManifest": {"UISceneConfigurations": {"UIWindowSceneSessionRoleApplication": [{"UISceneDelegateClassName": ""}]}}"#,
                "UIApplicationSceneManifest.UISceneConfigurations.UIWindowSceneSessionRoleApplication[0].UISceneDelegateClassName",
                .invalidValue
            ),
            (
                #""UIApplicationSceneManifest": {"UISceneConfigurations": {"UIWindowSceneSessionRoleApplication": [{"UISceneConfigurationName": "A"}, {"UISceneConfigurationName": "A"}]}}"#,
                "UIApplicationSceneManifest.UISceneConfigurations.UIWindowSceneSessionRoleApplication[1].UISceneConfigurationName",
                .duplicateValue
            ),
        ]
    )
    func typedErrors(_ body: String, key: String, code: ManifestError.Code) throws {
        let json = #"{"CFBundleIdentifier": "com.example.notes", "# + body + "}"
        let error = try #require(throws: ManifestError.self) { try AppManifest(data: Data(json.utf8)) }
        #expect(error.key == key)
        #expect(error.code == code)
    }

    @Test("More configurations than allowed are refused")
    func bounded() throws {
        let entries = (0..<65).map { #"{"UISceneConfigurationName": "c\#($0)"}"# }.joined(separator: ",")
        let json =
            #"{"CFBundleIdentifier": "com.example.notes", "UIApplicationSceneManifest": {"UISceneConfigurations": {"UIWindowSceneSessionRoleApplication": ["#
            + entries + "]}}}"
        let error = try #require(throws: ManifestError.self) { try AppManifest(data: Data(json.utf8)) }
        #expect(error.code == .invalidValue)
        #expect(error.problem.contains("at most 64"))
    }
}
