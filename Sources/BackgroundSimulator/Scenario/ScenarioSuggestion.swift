/// The candidate closest to `text` by edit distance, if one is close enough to be what was meant.
///
/// Letter case is ignored, so `onlaunch` matches `onLaunch` at distance 0. Close enough means
/// an edit distance of at most 2, or at most 1 for candidates of three characters or fewer (so
/// that `at` never suggests `id`). Ties go to the earlier candidate.
func closestMatch(to text: String, among candidates: [String]) -> String? {
    let folded = Array(text.lowercased().unicodeScalars)
    guard !folded.isEmpty, folded.count <= 64 else { return nil }
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let limit = candidate.count <= 3 ? 1 : 2
        let distance = editDistance(folded, Array(candidate.lowercased().unicodeScalars))
        if distance <= limit, distance < (best?.distance ?? .max) {
            best = (candidate, distance)
        }
    }
    return best?.candidate
}

/// The Levenshtein distance between two scalar arrays: insertions, deletions and substitutions.
private func editDistance(_ lhs: [Unicode.Scalar], _ rhs: [Unicode.Scalar]) -> Int {
    guard !lhs.isEmpty else { return rhs.count }
    guard !rhs.isEmpty else { return lhs.count }
    var previous = Array(0...rhs.count)
    var current = [Int](repeating: 0, count: rhs.count + 1)
    for i in 1...lhs.count {
        current[0] = i
        for j in 1...rhs.count {
            let substitution = previous[j - 1] + (lhs[i - 1] == rhs[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[rhs.count]
}
