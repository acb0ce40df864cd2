extension TerminationReport {
    /// Facts about the process that only the shell knows, for the report's header.
    public struct ProcessInfo: Sendable, Hashable {
        /// The process name, for example `notes-sync`.
        public var processName: String
        /// The process identifier, if there is a real process.
        public var pid: Int32?
        /// The wall-clock time of the termination, already formatted by the shell.
        public var wallClockTime: String?

        /// Creates header facts.
        public init(processName: String, pid: Int32? = nil, wallClockTime: String? = nil) {
            self.processName = processName
            self.pid = pid
            self.wallClockTime = wallClockTime
        }
    }

    /// The report as text: a header laid out like an Apple crash report, then every leaked
    /// assertion with its name, identifier, begin time and source location.
    ///
    /// ```text
    /// Incident Identifier: com.example.notes-1
    /// Process:             notes [4242]
    /// Identifier:          com.example.notes
    /// Exception Type:      EXC_CRASH (SIGKILL)
    /// Termination Reason:  Namespace FRONTBOARD, Code 0x8badf00d
    /// Termination Description: has active assertions beyond permitted time
    ///
    /// Leaked background task assertions (1), permittedBackgroundDuration: 30.000 s:
    ///   #1 (0x1) "Upload" begun at T+2.000s (28.000 s before termination)
    ///       Notes/UploadManager.swift:42 in upload()
    /// ```
    public func renderText(process: ProcessInfo? = nil) -> String {
        // Every value that comes from outside (names, identifiers) is escaped: a newline in an
        // assertion's name must not forge a report line.
        let name = ControlCharacters.escaped(process?.processName ?? app.bundleIdentifier)
        let pidText = process?.pid.map { " [\($0)]" } ?? ""
        var lines = [
            "Incident Identifier: \(app)-\(incident)",
            "Process:             \(name)\(pidText)",
            "Identifier:          \(app)",
        ]
        if let wall = process?.wallClockTime {
            lines.append("Date/Time:           \(ControlCharacters.escaped(wall))")
        }
        lines.append("System Time:         \(at)")
        lines.append("Policy:              \(ControlCharacters.escaped(policyName))")
        lines.append("State Before:        \(stateBefore)")
        switch reason {
        case .watchdog(let code):
            lines.append("Exception Type:      EXC_CRASH (SIGKILL)")
            lines.append("Exception Codes:     0x0000000000000000, 0x0000000000000000")
            lines.append("Termination Reason:  Namespace \(code.namespace), Code \(code)")
        case .exited(let status):
            lines.append("Termination Reason:  exited with status \(status)")
        case .userForceQuit, .systemReclaimed:
            lines.append("Termination Reason:  \(reason)")
        }
        lines.append("Termination Description: \(ControlCharacters.escaped(explanation))")
        lines.append("")
        lines.append(contentsOf: renderLeaks())
        if !uncompletedTasks.isEmpty {
            lines.append("")
            lines.append("Background tasks not completed (\(uncompletedTasks.count)):")
            for task in uncompletedTasks {
                let held = (at - task.startedAt).formattedSeconds
                lines.append(
                    "  \"\(ControlCharacters.escaped(task.identifier))\" (\(task.kind), \(task.run)) handed over at \(task.startedAt), \(held) s before termination"
                )
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func renderLeaks() -> [String] {
        let budget = permittedBackgroundDuration.formattedSeconds
        guard !leakedAssertions.isEmpty else {
            return ["No background task assertions were held (permittedBackgroundDuration: \(budget) s)."]
        }
        var lines = [
            "Leaked background task assertions (\(leakedAssertions.count)), permittedBackgroundDuration: \(budget) s:"
        ]
        let shownLimit = 50
        for leak in leakedAssertions.prefix(shownLimit) {
            let held = (at - leak.beganAt).formattedSeconds
            let expiry = leak.expirationDelivered ? ", expiration handler was called" : ""
            lines.append(
                "  #\(leak.id) \"\(ControlCharacters.escaped(leak.name))\" begun at \(leak.beganAt) (\(held) s before termination\(expiry))"
            )
            lines.append("      \(leak.origin)")
        }
        if leakedAssertions.count > shownLimit {
            lines.append("  … and \(leakedAssertions.count - shownLimit) more (the JSON report lists every one)")
        }
        return lines
    }
}
