extension AppManifest {
    /// Inconsistencies that are legal in an `Info.plist` but make scheduling fail, in plain English.
    ///
    /// None of them stops a manifest from loading, as none stops an app from installing: the
    /// scheduler reports them later, as `notPermitted` on submit. The list is empty for a
    /// consistent manifest, and its order is stable.
    ///
    /// ```swift
    /// let manifest = AppManifest(
    ///     bundleIdentifier: "com.example.notes", permittedTaskIdentifiers: ["com.example.notes.refresh"])
    /// manifest.warnings()
    /// // ["BGTaskSchedulerPermittedIdentifiers is present but UIBackgroundModes has neither 'fetch' nor 'processing'; …"]
    /// ```
    public func warnings() -> [String] {
        var warnings: [String] = []
        warnings += taskSchedulerWarnings()
        warnings += wildcardWarnings()
        for mode in backgroundModes.sorted(by: { $0.rawValue < $1.rawValue }) where !mode.isKnown {
            warnings.append("UIBackgroundModes contains '\(mode.rawValue)', which is not a known mode; iOS ignores it")
        }
        return warnings
    }

    /// Warnings about `BGTaskSchedulerPermittedIdentifiers` against `fetch` and `processing`.
    private func taskSchedulerWarnings() -> [String] {
        let hasFetch = backgroundModes.contains(.fetch)
        let hasProcessing = backgroundModes.contains(.processing)
        guard declaresTaskSchedulerIdentifiers else {
            var warnings: [String] = []
            if hasProcessing {
                warnings.append(
                    "UIBackgroundModes has 'processing' but BGTaskSchedulerPermittedIdentifiers is absent; "
                        + "every BGProcessingTaskRequest will be refused with notPermitted"
                )
            }
            if hasFetch {
                warnings.append(
                    "UIBackgroundModes has 'fetch' but BGTaskSchedulerPermittedIdentifiers is absent; "
                        + "only legacy background fetch can run, which is deprecated since iOS 13"
                )
            }
            return warnings
        }
        if permittedTaskIdentifiers.isEmpty {
            return [
                "BGTaskSchedulerPermittedIdentifiers is present but empty; no task can be scheduled, "
                    + "and legacy background fetch is disabled"
            ]
        }
        let hasExactEntries = permittedTaskIdentifiers.contains { Self.wildcardPrefix(of: $0) == nil }
        if hasExactEntries && !hasFetch && !hasProcessing {
            return [
                "BGTaskSchedulerPermittedIdentifiers is present but UIBackgroundModes has neither 'fetch' nor "
                    + "'processing'; every BGAppRefreshTaskRequest and BGProcessingTaskRequest will be refused "
                    + "with notPermitted"
            ]
        }
        return []
    }

    /// Warnings about wildcard entries that do not follow Apple's `<bundleID>.<context>.*` form.
    private func wildcardWarnings() -> [String] {
        let expected = bundleIdentifier.bundleIdentifier + "."
        var warnings: [String] = []
        for (index, entry) in permittedTaskIdentifiers.enumerated() {
            guard let prefix = Self.wildcardPrefix(of: entry) else { continue }
            if !prefix.hasPrefix(expected) {
                warnings.append(
                    "BGTaskSchedulerPermittedIdentifiers[\(index)] '\(entry)' is a wildcard that does not start "
                        + "with the bundle identifier; Apple's form is \(expected)<context>.*"
                )
            }
        }
        return warnings
    }
}
