import BackgroundCore
import Testing

@Suite("App manifest: permitted identifiers")
struct AppManifestPermitsTests {
    private let manifest = AppManifest(
        bundleIdentifier: "com.foo.app",
        permittedTaskIdentifiers: ["com.foo.app.refresh", "com.foo.app.continued.*"],
        backgroundModes: [.fetch]
    )

    @Test("An exact entry permits that identifier, and nothing that merely starts with it")
    func exactEntry() {
        #expect(manifest.permits(taskIdentifier: "com.foo.app.refresh"))
        #expect(!manifest.permits(taskIdentifier: "com.foo.app.refresh.1"))
        #expect(!manifest.permits(taskIdentifier: "com.foo.app.refreshX"))
        #expect(!manifest.permits(taskIdentifier: "com.foo.app"))
    }

    @Test("Identifiers are compared case-sensitively")
    func caseSensitive() {
        #expect(!manifest.permits(taskIdentifier: "COM.FOO.APP.REFRESH"))
        #expect(!manifest.permits(taskIdentifier: "com.foo.app.Continued.1"))
    }

    @Test("com.foo.app.continued.* permits com.foo.app.continued.HD830D and deeper identifiers")
    func wildcardMatches() {
        #expect(manifest.permits(taskIdentifier: "com.foo.app.continued.HD830D"))
        #expect(manifest.permits(taskIdentifier: "com.foo.app.continued.export.42"))
    }

    @Test(
        "com.foo.app.continued.* needs '.' and at least one more non-empty component after its prefix",
        arguments: [
            "com.foo.app.continued", "com.foo.app.continuedX.1", "com.foo.app.continued.",
            "com.foo.app.continued..x", "com.foo.app.continued.x.", "com.foo.app.continue",
        ]
    )
    func wildcardRejects(_ identifier: String) {
        #expect(!manifest.permits(taskIdentifier: identifier))
    }

    @Test("An identifier containing '*' is a pattern, never a task: the wildcard entry itself is not permitted")
    func patternIsNotATask() {
        #expect(!manifest.permits(taskIdentifier: "com.foo.app.continued.*"))
        #expect(!manifest.permits(taskIdentifier: "com.foo.app.continued.a*"))
    }

    @Test("The empty identifier is never permitted, and a manifest without entries permits nothing")
    func emptyCases() {
        #expect(!manifest.permits(taskIdentifier: ""))
        let none = AppManifest(bundleIdentifier: "com.foo.app", declaresTaskSchedulerIdentifiers: true)
        #expect(!none.permits(taskIdentifier: "com.foo.app.refresh"))
    }

    @Test("wildcardPrefix(of:) is the part before a trailing '.*', and nil for other entries")
    func wildcardPrefix() {
        #expect(AppManifest.wildcardPrefix(of: "com.foo.app.continued.*") == "com.foo.app.continued")
        #expect(AppManifest.wildcardPrefix(of: "com.foo.app.refresh") == nil)
        #expect(AppManifest.wildcardPrefix(of: ".*") == nil)
        #expect(AppManifest.wildcardPrefix(of: "*") == nil)
    }
}
