import BackgroundCore
import Testing

@Suite("App manifest: warnings")
struct AppManifestWarningsTests {
    private func manifest(_ ids: [String]? = nil, modes: Set<BackgroundMode> = []) -> AppManifest {
        AppManifest(
            bundleIdentifier: "com.foo.app",
            permittedTaskIdentifiers: ids ?? [],
            backgroundModes: modes,
            declaresTaskSchedulerIdentifiers: ids != nil
        )
    }

    @Test("A consistent manifest has no warnings")
    func consistent() {
        #expect(manifest(["com.foo.app.refresh"], modes: [.fetch]).warnings() == [])
        #expect(manifest(["com.foo.app.clean"], modes: [.processing, .audio]).warnings() == [])
        #expect(manifest().warnings() == [])
    }

    @Test("Permitted identifiers without the 'fetch' or 'processing' mode are a warning, not an error")
    func identifiersWithoutModes() {
        #expect(
            manifest(["com.foo.app.refresh"], modes: [.audio]).warnings() == [
                "BGTaskSchedulerPermittedIdentifiers is present but UIBackgroundModes has neither 'fetch' nor "
                    + "'processing'; every BGAppRefreshTaskRequest and BGProcessingTaskRequest will be refused "
                    + "with notPermitted"
            ]
        )
    }

    @Test("Wildcard (continued-processing) entries alone need neither 'fetch' nor 'processing'")
    func wildcardsNeedNoMode() {
        #expect(manifest(["com.foo.app.continued.*"]).warnings() == [])
    }

    @Test("An empty BGTaskSchedulerPermittedIdentifiers is a warning: nothing can be scheduled")
    func emptyList() {
        let warnings = manifest([], modes: [.fetch]).warnings()
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("BGTaskSchedulerPermittedIdentifiers is present but empty") == true)
    }

    @Test("The 'processing' mode without BGTaskSchedulerPermittedIdentifiers is a warning")
    func processingWithoutKey() {
        let warnings = manifest(modes: [.processing]).warnings()
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("'processing' but BGTaskSchedulerPermittedIdentifiers is absent") == true)
    }

    @Test("The 'fetch' mode without BGTaskSchedulerPermittedIdentifiers warns that only legacy fetch can run")
    func fetchWithoutKey() {
        let warnings = manifest(modes: [.fetch]).warnings()
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("legacy background fetch") == true)
    }

    @Test("Each unknown mode is a warning that names it, in sorted order")
    func unknownModes() {
        let modes: Set<BackgroundMode> = [.audio, BackgroundMode(rawValue: "zap"), BackgroundMode(rawValue: "Fetch")]
        #expect(
            manifest(modes: modes).warnings() == [
                "UIBackgroundModes contains 'Fetch', which is not a known mode; iOS ignores it",
                "UIBackgroundModes contains 'zap', which is not a known mode; iOS ignores it",
            ]
        )
    }

    @Test("A wildcard entry that does not start with the bundle identifier is a warning naming its index")
    func foreignWildcard() {
        let warnings = manifest(["com.foo.app.refresh", "org.other.*"], modes: [.fetch]).warnings()
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("BGTaskSchedulerPermittedIdentifiers[1] 'org.other.*'") == true)
        #expect(warnings.first?.hasSuffix("com.foo.app.<context>.*") == true)
    }
}
