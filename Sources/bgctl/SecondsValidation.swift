import ArgumentParser

/// Checks a number of seconds given on the command line: finite, within `range`.
func validateSeconds(_ value: Double, _ flag: String, _ range: ClosedRange<Double>) throws {
    guard value.isFinite, range.contains(value) else {
        throw ValidationError(
            "\(flag) must be a number of seconds from \(range.lowerBound) to \(range.upperBound), not \(value)"
        )
    }
}
