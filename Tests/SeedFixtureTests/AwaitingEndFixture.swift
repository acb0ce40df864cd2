// iOS code ends background tasks from nonisolated async code with `await`, because UIKit's
// UIApplication is main-actor isolated. Ours is nonisolated, so the same line compiles here;
// Swift notes that nothing is awaited ("no 'async' operations occur within 'await'").
import BackgroundExecution

enum AwaitingEndFixture {
    static func finishUpload(_ task: UIBackgroundTaskIdentifier) async {
        await UIApplication.shared.endBackgroundTask(task)
    }
}
