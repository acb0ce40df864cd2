// libFuzzer target: what the store reads back, as a damaged, hand-edited or hostile store holds
// it (a stored row is input: SECURITY.md). Each input is a sequence of records, each one of:
//
// - an app's rows (`apps`, `pending_requests`, `launches`): REAL times and durations read as the
//   store's readers read them (`StoredTime`, `StoredStrategy`, the kind's name), then restored
//   into a new core (`Event.restore`, after `.install` or not) and run with ticks, as
//   `backgroundd` does at start;
// - a `transfers` row: its `task` column and a checkpoint's JSON (numbers put in as text, past
//   what Int, Int64 and Double hold), checked as `BackgroundStore.transfers(of:)` checks it, then
//   restored as the engine restores it (its stored session options checked as an attach is,
//   `TransferQueue.submit` with its begin date, the queue's decisions, its resume data);
// - resume data: a JSON document decoded and checked as `TransferResumeData.decode` does before
//   it looks at the file.
//
// GRDB and SQLite are not compiled in: the layer below them is (`StoredRow`'s accessors hand each
// column to `StoredTime` and the decoders; what a column holds is chosen here). Properties beyond
// "no crash, no trap": every accepted instant lies on the timeline, the core's invariants hold
// after every restore and tick and its wake-ups lie on the timeline, an accepted transfer row
// names its row's transfer with a task in 1...Int32.max and lengths for counts, accepted session options are within the
// attach's bounds, and accepted resume data has consistent counts and a partial file under
// `Transfers/` with no `.`, `..` or empty component.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoredRows(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(Array(UnsafeBufferPointer(start: data, count: size)))
    let clock = WallClock(unixSecondsAtOrigin: input.pick(origins))
    var system = BackgroundSystem(policy: .iOS)
    var queue = TransferQueue()
    var now = Instant.zero
    var records = 0
    while !input.isExhausted, records < 16 {
        records += 1
        switch input.byte() % 3 {
        case 0: appRows(&input, clock: clock, system: &system, now: &now)
        case 1: transferRow(&input, clock: clock, queue: &queue, now: now)
        default: resumeData(&input)
        }
    }
    return 0
}

/// A REAL column read as an instant (StoredRow.optionalInstant); nil when the row is refused.
func instant(_ input: inout FuzzInput, clock: WallClock) -> Instant?? {
    guard let seconds = input.real() else { return .some(nil) }
    guard let instant = StoredTime.instant(unixSeconds: seconds, clock: clock) else { return nil }
    require(instant >= .distantPast && instant <= .distantFuture, "a stored time off the timeline: \(seconds)")
    return .some(instant)
}

func duration(_ input: inout FuzzInput) -> Duration?? {
    guard let seconds = input.real() else { return .some(nil) }
    guard let duration = StoredTime.duration(seconds: seconds) else { return nil }
    return .some(duration)
}

func appRows(_ input: inout FuzzInput, clock: WallClock, system: inout BackgroundSystem, now: inout Instant) {
    // backgroundd restores an app once, at start, after installing it if it is installed
    // (DaemonEngine.restore): each record is one start.
    system = BackgroundSystem(policy: .iOS)
    now = .zero
    if input.bool() { _ = try? system.handle(.install(manifest), at: now) }
    var saved = PersistedApp(app: app)
    if input.bool() {
        if input.bool() {
            saved.manifest = try? JSONDecoder().decode(AppManifest.self, from: Data(input.text().utf8))
        } else {
            saved.manifest = manifest
        }
    }
    if input.bool() {
        guard let available = duration(&input), let available,
            let updated = instant(&input, clock: clock), let updated,
            let lastRun = instant(&input, clock: clock),
            let interval = duration(&input),
            let lastFetch = instant(&input, clock: clock)
        else { return }  // the row is refused, and the store with it
        saved.state = PersistedAppState(
            forceQuit: input.bool(),
            refreshSwitch: input.bool(),
            runtimeBudget: RuntimeBudget(available: available, updatedAt: updated),
            lastBackgroundRunAt: lastRun,
            fetchInterval: interval,
            lastFetchAt: lastFetch
        )
    }
    for _ in 0..<(input.byte() % 4) {
        guard let kind = TaskKind(rawValue: input.pick(kindNames)),
            let strategy = StoredStrategy.strategy(named: input.pick(strategyNames)),
            let earliest = instant(&input, clock: clock),
            let submitted = instant(&input, clock: clock), let submitted
        else { return }
        saved.pendingRequests.append(
            TaskRequest(
                identifier: input.pick(["r", "p", "x"]),
                kind: kind,
                earliestBegin: earliest,
                requiresNetworkConnectivity: input.bool(),
                requiresExternalPower: input.bool(),
                title: input.text(limit: 8),
                subtitle: "",
                strategy: strategy,
                requiresGPU: input.bool(),
                submittedAt: submitted
            )
        )
    }
    for _ in 0..<(input.byte() % 4) {
        guard let launch = instant(&input, clock: clock), let launch else { return }
        saved.launches.append(launch)
    }
    check(try? system.handle(.restore(saved), at: now), system)
    for _ in 0..<(input.byte() % 4) {
        now = now + .seconds(Int64(input.uint32()))
        check(try? system.handle(.tick, at: now), system)
    }
}

func check(_ effects: [Effect]?, _ system: BackgroundSystem) {
    for case .scheduleWakeup(let at) in effects ?? [] {
        require(at <= .distantFuture && at >= .distantPast, "a wake-up off the timeline")
    }
    let violations = system.checkInvariants()
    require(violations.isEmpty, "invariants: \(violations)")
}

func transferRow(_ input: inout FuzzInput, clock: WallClock, queue: inout TransferQueue, now: Instant) {
    let rowTask = Int(input.number())
    let rowState = input.pick(["running", "waiting", "completed", "done"])
    var json = encodedJSON(sampleCheckpoint(task: max(1, min(rowTask, 1000))))
    if input.bool() {
        json = input.text()
    } else {
        for _ in 0..<(input.byte() % 4) {
            if input.bool() {
                json = replacing(input.pick(checkpointNumberFields), in: json, with: input.numberText())
            } else {
                json = replacing(input.pick(checkpointTextFields), in: json, with: encodedJSON(input.pick(texts)))
            }
        }
    }
    // BackgroundStore.transfers(of:).
    guard (1...Int(Int32.max)).contains(rowTask),
        var checkpoint = try? JSONDecoder().decode(TransferCheckpoint.self, from: Data(json.utf8)),
        checkpoint.app == app, checkpoint.session == "s", checkpoint.task == rowTask,
        checkpoint.state.rawValue == rowState
    else { return }
    require((1...Int(Int32.max)).contains(checkpoint.task), "a restored task \(checkpoint.task)")
    checkpoint.clampCounts()
    require(checkpoint.bytesDone >= 0 && (checkpoint.expectedLength ?? 0) >= 0, "counts \(checkpoint)")
    // DaemonTransfers.start: the stored options, checked as an attach is.
    var options = checkpoint.sessionOptions ?? TransferSessionOptions(app: app, session: "s")
    options.app = app
    options.session = "s"
    if TransferCall.attach(options).problem(from: app) != nil {
        options = TransferSessionOptions(app: app, session: "s")
    }
    require((1...1000).contains(options.maximumConnectionsPerHost), "connections \(options)")
    for seconds in [options.requestTimeoutSeconds, options.resourceTimeoutSeconds] {
        require(seconds.isFinite && seconds > 0 && seconds <= 1e9, "a timeout of \(seconds) s")
    }
    // What the engine computes from them (EmbeddedTransfers.client(for:), TransferRun).
    _ = Int64(max(1, min(options.requestTimeoutSeconds, 86_400)) * 1000)
    _ = Duration.seconds(options.resourceTimeoutSeconds)
    _ = TransferCheckpoint.partialPath(session: checkpoint.session, task: checkpoint.task)
    // EmbeddedTransfers.enqueue, then the queue's decisions.
    if checkpoint.state != .completed {
        let begin = checkpoint.earliestBeginUnixSeconds.map { unixSeconds in
            Instant(offset: .seconds(fromInterval: max(0, unixSeconds - clock.unixSecondsAtOrigin)))
        }
        let key = TransferKey(app: checkpoint.app, session: checkpoint.session, task: checkpoint.task)
        queue.submit(key, checkpoint.requirements ?? TransferRequirements(), earliestBegin: begin, at: now)
        let decision = queue.decide(at: now)
        if let wake = decision.wakeAt {
            require(wake >= .distantPast && wake <= .distantFuture, "a queue wake-up off the timeline")
        }
        _ = queue.decide(at: now + .seconds(86_400 * 365))
    }
    // Its resume data, as a cancel would produce it, read back.
    if let data = TransferResumeData(checkpoint), let bytes = try? JSONEncoder().encode(data) {
        accept(bytes)
    }
}

func resumeData(_ input: inout FuzzInput) {
    var json = encodedJSON(TransferResumeData(sampleCheckpoint(task: 1))!)
    if input.bool() {
        json = input.text()
    } else {
        for _ in 0..<(input.byte() % 4) {
            if input.bool() {
                json = replacing(input.pick(resumeNumberFields), in: json, with: input.numberText())
            } else {
                json = replacing(input.pick(resumeTextFields), in: json, with: encodedJSON(input.pick(texts)))
            }
        }
    }
    accept(Data(json.utf8))
}

/// TransferResumeData.decode up to its file checks, and what holds of what it accepts.
func accept(_ bytes: Data) {
    guard bytes.count <= TransferResumeData.maximumBytes,
        let data = try? JSONDecoder().decode(TransferResumeData.self, from: bytes),
        (try? data.check(for: app)) != nil
    else { return }
    require(data.bytes >= 0 && data.expectedLength.map { $0 >= data.bytes } ?? true, "counts \(data)")
    require(TransferURL.isAllowed(data.url), "a URL transfers refuse: \(data.url)")
    require(data.entityTag != nil || data.lastModified != nil, "no validator")
    let parts = data.partialFile.split(separator: "/", omittingEmptySubsequences: false)
    require(parts.first == "Transfers" && parts.count >= 2, "a partial file outside Transfers/: \(data)")
    require(parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }, "a partial file path: \(data)")
}
