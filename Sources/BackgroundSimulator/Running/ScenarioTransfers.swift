import BackgroundCore
import BackgroundExecution
import Foundation

/// A scenario app's background `URLSession`s, as app code keeps them: one session per kind of
/// transfer the app starts, recreated at every launch (so that the system reassociates it), a
/// delegate that calls the completion handlers of `handleEventsForBackgroundURLSession` from
/// `urlSessionDidFinishEvents(forBackgroundURLSession:)`.
@MainActor
final class ScenarioTransfers {
    private let delegate = ScenarioSessionDelegate()
    private var sessions: [String: URLSession] = [:]

    /// The sessions of every kind of transfer the app's actions start, created now.
    init(app: Scenario.App) {
        for transfer in Self.transfers(of: app) { _ = session(for: transfer, app: app.id) }
    }

    /// Every transfer any of the app's action lists starts, in the order written.
    static func transfers(of app: Scenario.App) -> [Scenario.Action.Transfer] {
        var lists = [app.onLaunch, app.onEnterBackground, app.onBecomeActive]
        for task in app.tasks {
            if case .complete(_, let then) = task.behaviour.completion { lists.append(then) }
        }
        return lists.joined().compactMap { action in
            switch action {
            case .download(let transfer), .upload(let transfer): return transfer
            default: return nil
            }
        }
    }

    private func session(for transfer: Scenario.Action.Transfer, app: String) -> URLSession {
        let identifier = transfer.session(of: app)
        if let existing = sessions[identifier] { return existing }
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        configuration.isDiscretionary = transfer.discretionary
        configuration.allowsCellularAccess = transfer.cellular
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        sessions[identifier] = session
        return session
    }

    /// Starts a transfer: the server is told what it holds, then the task is created and resumed.
    func start(_ transfer: Scenario.Action.Transfer, upload: Bool, app: String, simulator: Simulator) {
        simulator.network.serve(transfer.url, VirtualResource(size: transfer.bytes, failures: transfer.failures))
        let session = session(for: transfer, app: app)
        guard let url = URL(string: transfer.url) else { return }
        let task: URLSessionTask
        if upload {
            var request = URLRequest(url: url)
            request.httpMethod = "PUT"
            // The upload sends a file of the scenario's size, kept in memory (the simulator counts bytes).
            let file = simulator.transferSimulation.files.makeUpload(bytes: transfer.bytes)
            task = session.uploadTask(with: request, fromFile: URL(fileURLWithPath: file))
        } else {
            task = session.downloadTask(with: url)
        }
        task.priority = Float(transfer.priority)
        if let delay = transfer.earliestBegin { task.earliestBeginDate = Date(timeIntervalSinceNow: delay.seconds) }
        task.resume()
    }

    /// `handleEventsForBackgroundURLSession`'s completion handler, called when the session's
    /// events are delivered.
    func keep(_ handler: @escaping () -> Void, for identifier: String) {
        delegate.keep(handler, for: identifier)
    }
}

/// The scenario sessions' delegate: it calls the kept completion handler of a session once
/// its events are delivered (Apple: on the main queue; the simulator delivers there).
final class ScenarioSessionDelegate: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    /// Used on the main actor only: the simulator runs delegate calls there.
    private nonisolated(unsafe) var handlers: [String: [() -> Void]] = [:]

    func keep(_ handler: @escaping () -> Void, for identifier: String) {
        handlers[identifier, default: []].append(handler)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        let identifier = session.configuration.identifier ?? ""
        let kept = handlers.removeValue(forKey: identifier) ?? []
        for handler in kept { handler() }
    }
}
