import BackgroundCore

/// Makes a failing scenario smaller while it keeps failing the same way: fewer apps, fewer
/// timeline steps, fewer app actions, a shorter duration (delta debugging, one part at a time,
/// until nothing more can go).
@MainActor
struct Shrinker {
    let invariant: InvariantViolation.Invariant
    let violation: (Scenario) -> InvariantViolation?
    private(set) var runs = 0

    init(invariant: InvariantViolation.Invariant, violation: @escaping (Scenario) -> InvariantViolation?) {
        self.invariant = invariant
        self.violation = violation
    }

    /// Whether the candidate still breaks the invariant.
    private mutating func fails(_ candidate: Scenario) -> Bool {
        runs += 1
        return violation(candidate)?.invariant == invariant
    }

    mutating func shrink(_ scenario: Scenario) -> Scenario {
        var current = scenario
        var changed = true
        while changed && runs < 2000 {
            changed = false
            for pass in [Self.dropApps, Self.dropSteps, Self.dropActions, Self.cutDuration] {
                if let smaller = pass(&self, current) {
                    current = smaller
                    changed = true
                }
            }
        }
        return current
    }

    /// Removes apps (and the steps that name them) one at a time.
    private static func dropApps(_ shrinker: inout Shrinker, _ scenario: Scenario) -> Scenario? {
        var current = scenario
        var changed = false
        for id in scenario.apps.map(\.id) where current.apps.count > 1 {
            var candidate = current
            candidate.apps.removeAll { $0.id == id }
            candidate.timeline.removeAll { $0.app == id }
            if shrinker.fails(candidate) {
                current = candidate
                changed = true
            }
        }
        return changed ? current : nil
    }

    /// Removes timeline steps: halves first, then smaller chunks, down to single steps.
    private static func dropSteps(_ shrinker: inout Shrinker, _ scenario: Scenario) -> Scenario? {
        var current = scenario
        var chunk = max(current.timeline.count / 2, 1)
        var changed = false
        while chunk >= 1 && !current.timeline.isEmpty {
            var start = 0
            while start < current.timeline.count {
                var candidate = current
                candidate.timeline.removeSubrange(start..<min(start + chunk, current.timeline.count))
                if shrinker.fails(candidate) {
                    current = candidate
                    changed = true
                } else {
                    start += chunk
                }
            }
            chunk /= 2
        }
        return changed ? current : nil
    }

    /// Removes app actions and task handlers one at a time.
    private static func dropActions(_ shrinker: inout Shrinker, _ scenario: Scenario) -> Scenario? {
        var current = scenario
        var changed = false
        for appIndex in current.apps.indices {
            for list in [\Scenario.App.onLaunch, \.onEnterBackground, \.onBecomeActive] {
                var index = 0
                while index < current.apps[appIndex][keyPath: list].count {
                    var candidate = current
                    candidate.apps[appIndex][keyPath: list].remove(at: index)
                    if shrinker.fails(candidate) {
                        current = candidate
                        changed = true
                    } else {
                        index += 1
                    }
                }
            }
            var index = 0
            while index < current.apps[appIndex].tasks.count {
                var candidate = current
                candidate.apps[appIndex].tasks.remove(at: index)
                if shrinker.fails(candidate) {
                    current = candidate
                    changed = true
                } else {
                    index += 1
                }
            }
        }
        return changed ? current : nil
    }

    /// Ends the scenario just after its violation.
    private static func cutDuration(_ shrinker: inout Shrinker, _ scenario: Scenario) -> Scenario? {
        guard let found = shrinker.violation(scenario) else { return nil }
        let end = Duration.seconds(found.at.offset.components.seconds + 1)
        guard end < scenario.duration else { return nil }
        var candidate = scenario
        candidate.duration = end
        candidate.timeline.removeAll { step in
            if case .offset(let offset) = step.at { return offset >= end }
            return false
        }
        return shrinker.fails(candidate) ? candidate : nil
    }
}
