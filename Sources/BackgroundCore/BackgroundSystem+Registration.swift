extension BackgroundSystem {
    /// Apple's message when a handler is registered after launch (R2.3).
    public static let lateRegistrationMessage = "All launch handlers must be registered before application finishes launching"

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
        apps[index].manifest = manifest
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
        for request in blocked {
            enqueue(index, request, into: &effects)
            effects.append(.persist(.savePendingRequest(apps[index].id, request)))
        }
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
    ) {
        let index = recordIndex(for: app, at: now)
        guard let manifest = apps[index].manifest, manifest.permits(taskIdentifier: identifier) else {
            effects.append(.taskHandlerRefused(app, identifier: identifier))
            let message = "register(forTaskWithIdentifier: \"\(identifier)\"): not in BGTaskSchedulerPermittedIdentifiers"
            effects.append(.log(LogRecord(.error, app: app, message)))
            return
        }
        // Continued-processing identifiers (matched by a wildcard entry) are exempt (iOS 26 header).
        let continued = !manifest.permittedTaskIdentifiers.contains(identifier)
        if apps[index].launchFinished && !continued {
            effects.append(.fault(app, message: Self.lateRegistrationMessage))
            return
        }
        guard apps[index].registered.insert(identifier).inserted else {
            effects.append(.fault(app, message: Self.duplicateRegistrationMessage(identifier)))
            return
        }
        effects.append(.taskHandlerRegistered(app, identifier: identifier))
    }
}
