extension Eligibility {
    /// The explanation as text, for `bgctl why` and logs.
    ///
    /// ```text
    /// com.example.cleanup (processing): not eligible now
    ///   - needs external power; until the device, the user or the app changes it
    ///   - rate limited until T+2700.000s; clears by itself
    ///   deciding factor: needs external power
    ///   earliest possible run: T+2700.000s
    /// ```
    ///
    /// - Parameter formatInstant: How to print instants; the shell passes wall-clock dates.
    public func renderText(formatInstant: (Instant) -> String = { $0.description }) -> String {
        let identifier = ControlCharacters.escaped(request.identifier)
        var lines = ["\(identifier) (\(request.kind)): " + (isEligible ? "eligible now" : "not eligible now")]
        for condition in unmet {
            let kind =
                condition.clearsAt == nil ? "until the device, the user or the app changes it" : "clears by itself"
            lines.append("  - \(describe(condition, formatInstant)); \(kind)")
        }
        if let deciding = decidingFactor {
            lines.append("  deciding factor: \(describe(deciding, formatInstant))")
        }
        let bound = unmet.contains { $0.clearsAt == nil } ? " at the earliest, once the conditions above are met" : ""
        lines.append("  earliest possible run: \(formatInstant(earliestRun))\(bound)")
        return lines.joined(separator: "\n") + "\n"
    }

    private func describe(_ condition: UnmetCondition, _ format: (Instant) -> String) -> String {
        switch condition {
        case .notBefore(let at): return "not before \(format(at)), its earliestBeginDate"
        case .awaitingPredictedUse(let at): return "waiting for the next predicted use window at \(format(at))"
        case .budgetExhausted(let until): return "background budget spent until \(format(until))"
        case .rateLimited(let until): return "rate limited until \(format(until))"
        default: return condition.description
        }
    }
}
