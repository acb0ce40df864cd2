// An iOS-style app whose entry point is its app delegate, run as a Linux program.
//
//     swift run AppDelegateExample      # then press Ctrl-C, or send SIGTERM
//
// Only the import differs from the iOS code: `import UIKit` becomes `import BackgroundExecution`.
// It runs under the embedded system (`EmbeddedSystem.default`): the launch callbacks, the main
// run loop; SIGTERM moves it to the background, where it saves its state under a background
// task, and the process exits with status 0 when that task ends.

import BackgroundExecution
import Foundation

@main
class AppDelegate: UIResponder, UIApplicationDelegate {
    var saveTask: UIBackgroundTaskIdentifier = .invalid

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        say("didFinishLaunching")
        return true
    }

    func applicationDidBecomeActive(_ application: UIApplication) {
        say("didBecomeActive")
        say("ready")
    }

    func applicationWillResignActive(_ application: UIApplication) {
        say("willResignActive")
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        say("didEnterBackground")
        saveTask = application.beginBackgroundTask(withName: "Save state") {
            self.say("expired")
            application.endBackgroundTask(self.saveTask)
            self.saveTask = .invalid
        }
        Task { @MainActor in
            try? await Task.sleep(for: .milliseconds(200))  // the work: saving state
            self.say("saved")
            application.endBackgroundTask(self.saveTask)
            self.saveTask = .invalid
        }
    }

    func applicationWillTerminate(_ application: UIApplication) {
        say("willTerminate")
    }

    func say(_ line: String) {
        print(line)
        fflush(nil)  // every output stream: the lines reach a pipe at once
    }
}
