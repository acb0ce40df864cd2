import BackgroundCore

/// The expiration handlers of an app's outstanding assertions, by identifier.
///
/// Identifiers increase, so the table is an array sorted by identifier: beginning appends, and
/// ending the newest assertion (the common case) removes the last entry. No hashing, and no
/// allocation once the array has grown.
package struct ExpirationHandlerTable: Sendable {
    package typealias Handler = @MainActor @Sendable () -> Void

    /// A concrete struct, not a tuple: a closure stored in a generic array's tuple would be
    /// reabstracted through an allocated thunk on every insert.
    private struct Entry {
        let id: AssertionID
        let handler: Handler
    }

    private var entries: [Entry] = []

    package init() {}

    /// Records the handler of a newly granted assertion.
    package mutating func insert(_ handler: @escaping Handler, for id: AssertionID) {
        if !entries.isEmpty, entries[entries.count - 1].id > id {
            let index = entries.firstIndex { $0.id > id } ?? entries.endIndex
            entries.insert(Entry(id: id, handler: handler), at: index)
        } else {
            entries.append(Entry(id: id, handler: handler))
        }
    }

    /// Removes and returns the handler of an assertion, if it has one.
    package mutating func remove(_ id: AssertionID) -> Handler? {
        if !entries.isEmpty, entries[entries.count - 1].id == id { return entries.removeLast().handler }
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        return entries.remove(at: index).handler
    }

    /// How many handlers are kept.
    package var count: Int { entries.count }

    /// Forgets every handler (the process ended).
    package mutating func removeAll() {
        entries.removeAll()
    }
}
