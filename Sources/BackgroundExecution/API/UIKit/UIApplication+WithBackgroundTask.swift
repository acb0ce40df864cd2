import Synchronization

extension UIApplication {
    /// Runs `operation` under a background task assertion that ends exactly once, on every path,
    /// and whose expiration cancels the work.
    ///
    /// The two commonest background-task bugs — forgetting to end the task on some path, and
    /// an expiration handler that does not end it — cannot happen here: the assertion ends when
    /// the operation returns or throws, or when the system expires it, whichever comes first,
    /// and expiry cancels the operation's task so it can stop at its next cancellation check.
    ///
    /// ```swift
    /// try await UIApplication.shared.withBackgroundTask(named: "Upload") {
    ///     try await uploader.send(batch)      // cancelled if background time runs out
    /// }
    /// ```
    ///
    /// If the assertion cannot be granted, the operation still runs, already cancelled.
    ///
    /// - Parameters:
    ///   - name: The task's name in logs and termination reports.
    ///   - operation: The work to protect.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws (typically `CancellationError` after expiry).
    public func withBackgroundTask<T: Sendable>(
        named name: String,
        fileID: StaticString = #fileID,
        line: UInt = #line,
        function: StaticString = #function,
        operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let work = Task { try await operation() }
        let assertion = ScopedAssertion(application: self)
        let id = beginBackgroundTask(
            withName: name,
            expirationHandler: {
                work.cancel()
                assertion.end()
            },
            fileID: fileID,
            line: line,
            function: function
        )
        assertion.arm(id)
        defer { assertion.end() }
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            work.cancel()
        }
    }
}

/// An assertion that ends exactly once, whoever asks first.
final class ScopedAssertion: Sendable {
    private enum State {
        case waiting
        case armed(UIBackgroundTaskIdentifier)
        case endRequestedBeforeArming
        case ended
    }

    private let application: UIApplication
    private let state = Mutex(State.waiting)

    init(application: UIApplication) {
        self.application = application
    }

    /// Records the identifier; ends it at once if expiry already asked for the end.
    func arm(_ id: UIBackgroundTaskIdentifier) {
        let endNow = state.withLock { state -> Bool in
            if case .endRequestedBeforeArming = state {
                state = .ended
                return true
            }
            state = .armed(id)
            return false
        }
        if endNow { application.endBackgroundTask(id) }
    }

    /// Ends the assertion if it has not been ended yet.
    func end() {
        let id = state.withLock { state -> UIBackgroundTaskIdentifier? in
            switch state {
            case .armed(let id):
                state = .ended
                return id
            case .waiting:
                state = .endRequestedBeforeArming
                return nil
            case .endRequestedBeforeArming, .ended:
                return nil
            }
        }
        if let id { application.endBackgroundTask(id) }
    }
}
