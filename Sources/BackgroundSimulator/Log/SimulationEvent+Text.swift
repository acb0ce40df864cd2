import BackgroundCore

extension SimulationEvent {
    /// The event as one line of text, or `nil` for events not worth a line.
    ///
    /// - Parameters:
    ///   - clock: Labels the instant with the simulated wall clock.
    ///   - verbose: Include every battery step and budget sample.
    public func line(clock: WallClockLabel, verbose: Bool = false) -> String? {
        guard let text = text(verbose: verbose) else { return nil }
        // Names come from scenarios and app code: control characters are escaped, so a name
        // cannot forge a log line or reach the terminal.
        let subject = ControlCharacters.escaped(app?.bundleIdentifier ?? subjectWithoutApp)
        return "\(clock.label(at).padded(to: 21)) \(subject.padded(to: 24)) \(ControlCharacters.escaped(text))"
    }

    private var activityText: String? {
        if case .transfer(let activity) = kind { return activity.description }
        return nil
    }

    private var subjectWithoutApp: String {
        switch kind {
        case .device: return "device"
        case .user: return "user"
        case .note: return "note"
        case .violation: return "VIOLATION"
        default: return "system"
        }
    }

    private func text(verbose: Bool) -> String? {
        switch kind {
        case .user(let action): return action.description
        case .device(.batteryLevel(let level), _) where !verbose:
            let percent = Int((level * 100).rounded())
            return percent % 10 == 0 ? "battery \(percent) %" : nil
        case .device(let change, _): return change.description
        // The move to `terminated` is said once, by the termination's own line (the code and the
        // leaked tasks), which follows at the same instant.
        case .system(.stateChanged(_, _, .terminated)) where !verbose: return nil
        case .system(let effect): return effect.logLine
        case .reply(_, let reply): return reply.logLine
        case .budget(_, let remaining, _):
            return verbose ? "background time remaining \(remaining.formattedSeconds) s" : nil
        case .appCode(_, let text): return "app: \(text)"
        case .appCall(_, let call): return "app: \(call)"
        case .note(let text): return text
        case .violation(let violation):
            return "\(violation.invariant.statement): \(violation.message)"
        case .transfer(.progress):
            return verbose ? activityText : nil
        case .transfer(let activity): return activity.description
        }
    }
}

extension Simulator {
    /// The simulated wall clock's labeller.
    public var clockLabel: WallClockLabel {
        WallClockLabel(startUnixSeconds: configuration.start.timeIntervalSince1970, utcOffset: configuration.utcOffset)
    }

    /// The event log as text, one line per event worth reading.
    ///
    /// - Parameter verbose: Include every battery step and budget sample.
    public func logText(verbose: Bool = false) -> String {
        let clock = clockLabel
        return events.compactMap { $0.line(clock: clock, verbose: verbose) }.joined(separator: "\n")
    }
}

extension String {
    func padded(to length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
