extension BackgroundSystem {
    mutating func submit(
        _ app: AppID,
        _ submitted: TaskRequest,
        at now: Instant,
        into effects: inout [Effect]
    )
        -> Reply?
    {
        let index = recordIndex(for: app, at: now)
        var request = submitted
        request.submittedAt = now
        if request.kind == .continuedProcessing {
            request.earliestBegin = now  // "outright ignored … in favor of NSDate.now" (S12)
        }
        if let rejection = rejection(of: request, for: index, at: now) {
            let message = "submit(\"\(request.identifier)\") refused: \(rejection)"
            effects.append(.log(LogRecord(.warning, app: app, message)))
            return .rejected(identifier: request.identifier, rejection)
        }
        guard request.kind.isDelegateCallback || apps[index].registered.contains(request.identifier) else {
            effects.append(.fault(app, message: Self.missingHandlerMessage(request.identifier)))
            return nil
        }
        enqueue(index, request, into: &effects)
        effects.append(.persist(.savePendingRequest(app, request)))
        return .accepted(request)
    }

    /// Why the submission is refused, or `nil` if it is accepted: Apple's codes (§2.3).
    func rejection(of request: TaskRequest, for index: Int, at now: Instant) -> SubmissionRejection? {
        guard let manifest = apps[index].manifest, manifest.permits(taskIdentifier: request.identifier) else {
            return .notPermitted
        }
        switch request.kind {
        case .appRefresh, .fetch: if !manifest.backgroundModes.contains(.fetch) { return .notPermitted }
        case .processing: if !manifest.backgroundModes.contains(.processing) { return .notPermitted }
        case .continuedProcessing:
            if request.requiresGPU && !policy.scheduling.supportsBackgroundGPU { return .notPermitted }
        case .remoteNotification: return .notPermitted  // pushes come from the push service, never a submit
        case .transfer: return .notPermitted
        }
        if backgroundRefreshStatus(of: apps[index].id) != .available { return .unavailable }
        let sameKind = apps[index].pending.values.count {
            $0.request.kind == request.kind && $0.request.identifier != request.identifier
        }
        if sameKind >= pendingLimit(for: request.kind) { return .tooManyPendingTaskRequests }
        if request.kind == .continuedProcessing {
            // It starts from the user's action in the foreground (S13; DTS thread 808756).
            guard apps[index].state.isForeground else { return .immediateRunIneligible }
            if request.strategy == .fail && runningContinuedCount >= policy.scheduling.maximumConcurrentContinuedTasks {
                return .immediateRunIneligible
            }
        }
        return nil
    }

    func pendingLimit(for kind: TaskKind) -> Int {
        switch kind {
        case .appRefresh: return policy.scheduling.maximumPendingRefreshRequests
        case .processing: return policy.scheduling.maximumPendingProcessingRequests
        case .continuedProcessing: return policy.scheduling.maximumPendingContinuedRequests
        case .fetch, .remoteNotification: return 1
        case .transfer: return 0
        }
    }

    /// Adds (or replaces, R2.5) a pending request and files it in the queue.
    mutating func enqueue(_ index: Int, _ request: TaskRequest, into effects: inout [Effect]) {
        let gates = DeviceGates(for: request, policy: policy.scheduling)
        let sequence = queue.insert(app: index, request: request, gates: gates)
        apps[index].pending[request.identifier] = PendingRequest(request: request, sequence: sequence)
    }

    mutating func cancel(_ app: AppID, identifier: String, into effects: inout [Effect]) {
        guard let index = appIndex[app] else { return }
        removePending(index, identifier: identifier, into: &effects)
    }

    mutating func cancelAll(_ app: AppID, into effects: inout [Effect]) {
        guard let index = appIndex[app] else { return }
        let fetch = apps[index].pending[Self.fetchIdentifier]
        let push = apps[index].pending[Self.remoteNotificationIdentifier]
        apps[index].pending = [:]
        if let fetch { apps[index].pending[Self.fetchIdentifier] = fetch }
        if let push { apps[index].pending[Self.remoteNotificationIdentifier] = push }
        effects.append(.persist(.deleteAllPendingRequests(app)))
    }

    /// Forgets a pending request; its queue entry goes stale.
    mutating func removePending(_ index: Int, identifier: String, into effects: inout [Effect]) {
        guard apps[index].pending.removeValue(forKey: identifier) != nil else { return }
        // Fetch is rebuilt from the fetch interval; a deferred push is never stored.
        guard identifier != Self.fetchIdentifier, identifier != Self.remoteNotificationIdentifier else { return }
        effects.append(.persist(.deletePendingRequest(apps[index].id, identifier: identifier)))
    }

    /// The app's pending requests (submitted, not yet run), oldest first; fetch and deferred
    /// silent pushes are not.
    public func pendingRequests(of app: AppID) -> [TaskRequest] {
        guard let index = appIndex[app] else { return [] }
        return apps[index].pending.values.map(\.request).filter { !$0.kind.isDelegateCallback }
            .sorted { ($0.submittedAt, $0.identifier) < ($1.submittedAt, $1.identifier) }
    }

    /// The app's tasks handed over and not yet completed.
    public func runningTasks(of app: AppID) -> [TaskRun] {
        guard let index = appIndex[app] else { return [] }
        return apps[index].running.values.sorted { $0.id < $1.id }
    }

    var runningContinuedCount: Int { continuedRunning }
}
