import BackgroundCore
import Synchronization

/// The assertion that keeps an app running while the completion handlers of its
/// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` calls are
/// outstanding: begun when the system wakes the app for its sessions' events, ended once, when
/// the last handler is called or when its time runs out (reference §5.3).
///
/// Every transport opens it the same way (the embedded system when it resumes the app, the
/// daemon's client when the daemon says `handleEvents`), so an app whose completion handler is
/// still queued on its main queue holds an assertion whatever the system's side knows: a
/// `backgroundd` restarted meanwhile takes the app over with the assertion it declares, and does
/// not freeze it before the handler runs.
package final class TransferEventsWindow: Sendable {
    /// The assertion's name, as `bgctl … assertions` and the reports show it.
    package static let assertionName = "URLSession events"

    private struct Window {
        var id: AssertionID?
        var remaining: Int
        var closed = false
    }

    private let state: Mutex<Window>
    private weak let connection: (any SystemConnection)?

    private init(handlers: Int, connection: any SystemConnection) {
        state = Mutex(Window(remaining: handlers))
        self.connection = connection
    }

    /// Begins the assertion on `connection` for `handlers` completion handlers. A denied begin
    /// (the app has no background time left) leaves nothing to end.
    package static func open(on connection: any SystemConnection, handlers: Int) -> TransferEventsWindow {
        let window = TransferEventsWindow(handlers: handlers, connection: connection)
        let id = connection.beginAssertion(named: assertionName, at: CallSite()) { [weak window] in
            window?.close()
        }
        window.state.withLock { $0.id = id }
        return window
    }

    /// A completion handler was called: the assertion ends after the last one.
    package func handlerCalled() {
        let id = state.withLock { window -> AssertionID? in
            window.remaining -= 1
            return window.remaining <= 0 ? Self.take(&window) : nil
        }
        if let id { connection?.endAssertion(id) }
    }

    /// The assertion's time ran out: it ends now, if it was not ended yet.
    private func close() {
        if let id = state.withLock({ Self.take(&$0) }) { connection?.endAssertion(id) }
    }

    private static func take(_ window: inout Window) -> AssertionID? {
        guard !window.closed, let id = window.id else { return nil }
        window.closed = true
        return id
    }
}
