extension BackgroundSystem {
    /// Apple's message when a handler is registered after launch (R2.3).
    public static let lateRegistrationMessage =
        "All launch handlers must be registered before application finishes launching"

    /// Apple's message for a second registration of an identifier (R2.3).
    public static func duplicateRegistrationMessage(_ identifier: String) -> String {
        "Launch handler for task with identifier \(identifier) has already been registered"
    }

    /// Apple's message for a submission or launch with no handler registered (R2.3).
    public static func missingHandlerMessage(_ identifier: String) -> String {
        "No launch handler registered for task with identifier \(identifier)"
    }

    mutating func install(_ manifest: AppManifest, at now: Instant, into effects: inout [Effect]) {
        let index = recordIndex(for: manifest.bundleIdentifier, at: now)
        let changed = apps[index].manifest != manifest
        apps[index].manifest = manifest
        if changed { effects.append(.persist(.saveManifest(manifest))) }
        // An update that no longer permits an identifier drops its pending request.
        for pending in apps[index].pending.values.sorted(by: { $0.request.identifier < $1.request.identifier })
        where !pending.request.kind.isDelegateCallback && !manifest.permits(taskIdentifier: pending.request.identifier)
        {
            removePending(index, identifier: pending.request.identifier, into: &effects)
        }
        if manifest.declaresTaskSchedulerIdentifiers, apps[index].fetchInterval != nil {
            apps[index].fetchInterval = nil
            removePending(index, identifier: Self.fetchIdentifier, into: &effects)
        }
    }

    mutating func finishLaunching(_ app: AppID, at now: Instant, into effects: inout [Effect]) {
        guard let index = appIndex[app], apps[index].state.isRunning else { return }
        markLaunchFinished(index, at: now, into: &effects)
    }

    /// Closes registration and hands over the tasks the app was launched for.
    mutating func markLaunchFinished(_ index: Int, at now: Instant, into effects: inout [Effect]) {
        guard !apps[index].launchFinished else { return }
        apps[index].launchFinished = true
        let waiting = apps[index].awaitingLaunch
        apps[index].awaitingLaunch = []
        // The device may have changed while the app launched: what it blocks goes back to pending.
        let gatesUnmet = unmetGates
        let (startable, blocked) = waiting.reduce(into: ([TaskRequest](), [TaskRequest]())) { split, request in
            if DeviceGates(for: request, policy: policy.scheduling).isDisjoint(with: gatesUnmet) {
                split.0.append(request)
            } else {
                split.1.append(request)
            }
        }
        for request in blocked { returnToPending(index, request, at: now, into: &effects) }
        refreshBusy(index)
        if !startable.isEmpty {
            startRuns(index, startable, at: now, into: &effects)
        } else {
            settle(index, at: now, into: &effects)
        }
        examineIfParked(index, at: now, into: &effects)
    }

    mutating func registerTaskHandler(
        _ app: AppID,
        identifier: String,
        at now: Instant,
        into effects: inout [Effect]
    ) -> Reply? {
        let index = recordIndex(for: app, at: now)
        guard let manifest = apps[index].manifest, manifest.permits(taskIdentifier: identifier) else {
            let message =
                "register(forTaskWithIdentifier: \"\(identifier)\"): not in BGTaskSchedulerPermittedIdentifiers"
            effects.append(.log(LogRecord(.error, app: app, message)))
            return .refused(identifier: identifier)
        }
        // Continued-processing identifiers (matched by a wildcard entry) are exempt (iOS 26 header).
        let continued = !manifest.permittedTaskIdentifiers.contains(identifier)
        if apps[index].launchFinished && !continued {
            effects.append(.fault(app, message: Self.lateRegistrationMessage))
            return nil
        }
        guard apps[index].registered.insert(identifier).inserted else {
            effects.append(.fault(app, message: Self.duplicateRegistrationMessage(identifier)))
            return nil
        }
        return .registered(identifier: identifier)
    }

    /// Puts back a request that was handed to a launching app but that the device now blocks,
    /// unless the app resubmitted that identifier meanwhile (R2.5: the newer request wins) or
    /// the kind's pending limit is full again (R2.6): then the older request is dropped.
    mutating func returnToPending(_ index: Int, _ request: TaskRequest, at now: Instant, into effects: inout [Effect]) {
        let app = apps[index].id
        if apps[index].pending[request.identifier] != nil { return }
        let sameKind = apps[index].pending.values.filter { $0.request.kind == request.kind }.count
        guard sameKind < pendingLimit(for: request.kind) else {
            let message =
                "dropped \"\(request.identifier)\": the device blocked it during launch and newer requests fill its limit"
            effects.append(.log(LogRecord(.warning, app: app, message)))
            return
        }
        enqueue(index, request, into: &effects)
        effects.append(.persist(.savePendingRequest(app, request)))
    }
}
