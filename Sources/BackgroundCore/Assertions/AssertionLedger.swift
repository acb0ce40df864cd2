/// The outstanding assertions of one app, in begin order.
///
/// Identifiers increase, so the ledger is an array sorted by identifier: beginning appends,
/// ending is a binary search, and "begin order" costs nothing. The common case (end the newest
/// assertion) removes from the end.
public struct AssertionLedger: Sendable, Hashable {
    private var assertions: [Assertion] = []
    private var nextRawID = 1
    /// Identifiers the app's runtime allocated and the system revoked at once, whose end is
    /// expected and quiet; the newest ``revokedLimit``.
    private var revoked: [AssertionID] = []

    /// How many revoked identifiers are remembered (an end of an older one is logged as unknown).
    static let revokedLimit = 64

    /// Creates an empty ledger whose first identifier is 1.
    public init() {}

    /// Creates an empty ledger that goes on from `next`: a new process's identifiers never
    /// repeat an earlier process's, so an end from an ended process cannot end a new assertion.
    public init(continuingFrom next: AssertionID) {
        nextRawID = next.rawValue
    }

    /// The number of outstanding assertions.
    public var count: Int { assertions.count }

    /// Whether no assertion is outstanding.
    public var isEmpty: Bool { assertions.isEmpty }

    /// The outstanding assertions, oldest first.
    public var inBeginOrder: [Assertion] { assertions }

    /// The identifier the next `begin` will issue.
    public var nextID: AssertionID { AssertionID(rawValue: nextRawID) }

    /// Records a new assertion and returns its identifier.
    public mutating func begin(
        name: String,
        origin: CallSite,
        at now: Instant,
        hasExpirationHandler: Bool
    )
        -> AssertionID
    {
        let id = AssertionID(rawValue: nextRawID)
        nextRawID += 1
        assertions.append(
            Assertion(id: id, name: name, origin: origin, beganAt: now, hasExpirationHandler: hasExpirationHandler)
        )
        return id
    }

    /// Whether an identifier the app's runtime allocated is new in this process: never issued,
    /// revoked or used by an earlier process, and a valid identifier, below
    /// ``identifierLimit``.
    public func isNew(_ id: AssertionID) -> Bool {
        id.rawValue >= nextRawID && id.rawValue < Self.identifierLimit
    }

    /// The identifiers an app's runtime may allocate lie below 2^62: an app that jumps to the
    /// top (an app's message is untrusted) leaves 3 × 2^62 more identifiers to issue, which no
    /// process reaches by counting, so the ledger's `+ 1` never overflows (issue 25).
    public static let identifierLimit = 1 << 62

    /// Records an assertion whose identifier the app's runtime allocated; `false`, and nothing
    /// recorded, if the identifier is not new (``isNew(_:)``).
    public mutating func begin(
        allocated id: AssertionID,
        name: String,
        origin: CallSite,
        at now: Instant,
        hasExpirationHandler: Bool
    ) -> Bool {
        guard isNew(id) else { return false }
        nextRawID = id.rawValue + 1
        assertions.append(
            Assertion(id: id, name: name, origin: origin, beganAt: now, hasExpirationHandler: hasExpirationHandler)
        )
        return true
    }

    /// Uses up an identifier the app's runtime allocated without granting it; its end will be
    /// quiet. `false` if the identifier is not new.
    mutating func revoke(_ id: AssertionID) -> Bool {
        guard isNew(id) else { return false }
        nextRawID = id.rawValue + 1
        if revoked.count == Self.revokedLimit { revoked.removeFirst() }
        revoked.append(id)
        return true
    }

    /// Forgets a revoked identifier the app ended; whether it was one.
    mutating func endRevoked(_ id: AssertionID) -> Bool {
        guard !revoked.isEmpty, let index = revoked.firstIndex(of: id) else { return false }
        revoked.remove(at: index)
        return true
    }

    /// Removes and returns the assertion, or `nil` if it is unknown or already ended.
    public mutating func end(_ id: AssertionID) -> Assertion? {
        guard let index = index(of: id) else { return nil }
        return index == assertions.count - 1 ? assertions.removeLast() : assertions.remove(at: index)
    }

    /// Ends an assertion without returning its record; whether it was outstanding.
    mutating func remove(_ id: AssertionID) -> Bool {
        // Compare the field in place: `assertions.last` would copy (and retain) the whole record.
        if !assertions.isEmpty, assertions[assertions.count - 1].id == id {
            assertions.removeLast()
            return true
        }
        guard let index = index(of: id) else { return false }
        assertions.remove(at: index)
        return true
    }

    /// The assertion with this identifier, if outstanding.
    public func assertion(_ id: AssertionID) -> Assertion? {
        index(of: id).map { assertions[$0] }
    }

    /// Whether the assertion is outstanding.
    public func contains(_ id: AssertionID) -> Bool { index(of: id) != nil }

    /// Marks every outstanding assertion that has a handler not yet called as delivered, and
    /// returns their identifiers in begin order.
    mutating func takeUndeliveredHandlers() -> [AssertionID] {
        var ids: [AssertionID] = []
        for index in assertions.indices where assertions[index].hasExpirationHandler {
            if !assertions[index].expirationDelivered {
                assertions[index].expirationDelivered = true
                ids.append(assertions[index].id)
            }
        }
        return ids
    }

    /// Marks the handlers as not yet delivered again (expiration was cancelled before them).
    mutating func restoreUndelivered(_ ids: some Sequence<AssertionID>) {
        for id in ids {
            if let index = index(of: id) { assertions[index].expirationDelivered = false }
        }
    }

    /// Removes and returns every outstanding assertion, oldest first.
    public mutating func removeAll() -> [Assertion] {
        defer { assertions.removeAll() }
        return assertions
    }

    private func index(of id: AssertionID) -> Int? {
        if !assertions.isEmpty, assertions[assertions.count - 1].id == id { return assertions.count - 1 }
        var low = 0
        var high = assertions.count
        while low < high {
            let middle = (low + high) / 2
            if assertions[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < assertions.count && assertions[low].id == id ? low : nil
    }

    /// Checks the ledger's own invariants: identifiers strictly increasing and below `nextID`.
    func violations() -> [String] {
        var found: [String] = []
        for (earlier, later) in zip(assertions, assertions.dropFirst()) where earlier.id >= later.id {
            found.append("ledger out of order: \(earlier.id) before \(later.id)")
        }
        if let last = assertions.last, last.id.rawValue >= nextRawID {
            found.append("ledger holds \(last.id) but next identifier is \(nextRawID)")
        }
        return found
    }
}
