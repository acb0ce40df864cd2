public import BackgroundCore
import BackgroundDevice
import BackgroundProtocol
import Foundation

extension DaemonEngine {
    /// The conditions the core schedules by now.
    public var deviceConditions: DeviceConditions { state.withLock { $0.core.currentDevice } }

    /// `bgctl device` (and the device part of `bgctl daemon status`): each condition with its
    /// source, memory pressure and who would be reclaimed next, the overrides.
    func deviceReply() -> ControlReplyParts {
        let reading = device.reading
        let (pressure, next) = state.withLock { state in
            (state.core.currentMemoryPressure, state.core.reclaimCandidates.first?.bundleIdentifier)
        }
        let overrides = device.state.withLock { $0.overrides }
        var lines = reading.lines
        lines.append("memory pressure: \(pressure.rawValue); next to reclaim: \(next ?? "none")")
        if !overrides.isEmpty { lines.append("overrides: \(overrides.description)") }
        let conditions = reading.entries.map { entry -> [String: Any] in
            ["name": entry.name, "value": entry.value, "source": entry.source.kind, "detail": "\(entry.source)"]
        }
        var memory: [String: Any] = ["pressure": pressure.rawValue, "reclaimNext": next ?? NSNull()]
        switch reading.memory {
        case .read(let value, let from):
            memory["source"] = "probe"
            memory["detail"] = "probe: \(from)"
            memory["someAvg10"] = value.stall.some.avg10
            memory["fullAvg10"] = value.stall.full?.avg10 ?? NSNull()
            memory["availableBytes"] = value.memory.map { Int($0.availableBytes) } ?? NSNull()
            memory["totalBytes"] = value.memory.map { Int($0.totalBytes) } ?? NSNull()
        case .unavailable(let reason):
            memory["source"] = "default"
            memory["detail"] = "default: \(reason)"
        }
        let document: [String: Any] = [
            "conditions": conditions,
            "memory": memory,
            "overrides": overrides.description,
            "developerMode": device.settings.developerMode,
        ]
        return ControlReplyParts(lines: lines, document: document)
    }

    /// `bgctl device set` (`arguments`) or `bgctl device clear` (nil).
    func overrideDevice(_ arguments: [String]?) -> ControlReply {
        do {
            _ = try device.override(arguments, self)
        } catch {
            switch error {
            case .notDeveloperMode:
                return reply(
                    .denied,
                    "device overrides need developer mode: start backgroundd with --developer-mode",
                    ["developerMode": false]
                )
            case .invalid(let error):
                return reply(.invalid, "\(error)", ["error": "\(error)"])
            }
        }
        let parts = deviceReply()
        return reply(.ok, parts.lines.joined(separator: "\n"), parts.document)
    }
}

/// A reply's text lines and JSON document, before they are joined into a ``ControlReply``.
struct ControlReplyParts {
    var lines: [String]
    var document: [String: Any]
}
