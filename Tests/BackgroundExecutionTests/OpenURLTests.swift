import BackgroundExecution
import BackgroundTestSupport
import Foundation
import Synchronization
import Testing

/// `UIApplication.open(_:options:completionHandler:)` on Linux: the connection's `URLOpener`, or
/// `false` on the main actor.
@Suite("Opening URLs")
struct OpenURLTests {
    static func application(opener: URLOpener?) -> UIApplication {
        var configuration = EmbeddedSystem.Configuration.test(
            app: "com.example.open",
            policy: .iOS,
            clock: ManualClock(),
            log: EffectLog()
        )
        configuration.urlOpener = opener
        return UIApplication(connection: EmbeddedSystem(configuration: configuration))
    }

    /// On the main actor, as an app calls it: "after it returns" is only ordered for a caller on
    /// the main thread (from another thread, the main actor may run the completion first).
    @Test("Without an opener: canOpenURL is false and open completes with false, on the main actor, after it returns")
    @MainActor
    func noOpener() async throws {
        let application = Self.application(opener: nil)
        let settings = try #require(URL(string: UIApplication.openSettingsURLString))
        #expect(!application.canOpenURL(settings))
        let answers = Recorder<String>()
        application.open(settings, options: [:]) { opened in
            answers.append("\(opened) " + (MainActorThread.isCurrent ? "on the main actor" : "off it"))
        }
        answers.append("returned")
        #expect(await waitUntil { answers.all.count == 2 })
        #expect(answers.all == ["returned", "false on the main actor"])
        #expect(await application.open(settings) == false)
    }

    @Test("With an opener: it gets the URL and the universal-links option, and its answer reaches the app")
    func withOpener() async throws {
        let opened = Recorder<String>()
        let opener = URLOpener(
            canOpen: { $0.scheme == "https" },
            open: { url, universalOnly, done in
                opened.append("\(url.absoluteString) universalOnly=\(universalOnly)")
                done(true)
            }
        )
        let application = Self.application(opener: opener)
        let url = try #require(URL(string: "https://example.com/a"))
        #expect(application.canOpenURL(url))
        #expect(!application.canOpenURL(try #require(URL(string: "app-settings:"))))
        let answers = Recorder<Bool>()
        application.open(url, options: [.universalLinksOnly: true]) { answers.append($0) }
        #expect(await waitUntil { answers.all.count == 1 })
        #expect(answers.all == [true])
        #expect(await application.open(url))
        #expect(
            opened.all == ["https://example.com/a universalOnly=true", "https://example.com/a universalOnly=false"]
        )
        #expect(
            UIApplication.OpenURLOptionsKey.sourceApplication.rawValue
                == "UIApplicationOpenURLOptionsSourceApplicationKey"
        )
    }
}
