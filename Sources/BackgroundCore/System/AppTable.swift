/// The system's app records, in the order it first saw the apps, remembering which ones changed.
///
/// Every write to a record goes through the subscript's `_modify` (or ``append(_:)``), which
/// notes the record's index once. What depends on a few records' fields (the deadline index,
/// the debug invariant check) then looks at the records that changed instead of at every app,
/// and cannot miss a change: there is no other way to write a record. Reads (`_read`) borrow
/// the record in place, as an array's subscript does.
struct AppTable: RandomAccessCollection, Sendable {
    private(set) var records: [AppRecord] = []
    /// Indices changed since the deadline index last looked (``takeChangedForDeadlines()``).
    private var changedForDeadlines: [Int] = []
    private var isChangedForDeadlines: [Bool] = []
    #if DEBUG
    /// Indices changed since the invariants were last checked (``takeChangedForInvariants()``).
    private var changedForInvariants: [Int] = []
    private var isChangedForInvariants: [Bool] = []
    #endif

    var startIndex: Int { records.startIndex }
    var endIndex: Int { records.endIndex }

    subscript(index: Int) -> AppRecord {
        _read { yield records[index] }
        _modify {
            markChanged(index)
            yield &records[index]
        }
    }

    /// Adds a record (changed, as every new one is).
    mutating func append(_ record: AppRecord) {
        records.append(record)
        isChangedForDeadlines.append(false)
        #if DEBUG
        isChangedForInvariants.append(false)
        #endif
        markChanged(records.count - 1)
    }

    /// Notes that what depends on the record at `index` must be looked at again: for a change
    /// that lives outside the record (its membership in the sets of apps with deadlines).
    @inline(__always)
    mutating func markChanged(_ index: Int) {
        if !isChangedForDeadlines[index] {
            isChangedForDeadlines[index] = true
            changedForDeadlines.append(index)
        }
        #if DEBUG
        if !isChangedForInvariants[index] {
            isChangedForInvariants[index] = true
            changedForInvariants.append(index)
        }
        #endif
    }

    /// Whether the deadline index has something to look at again.
    var hasChangesForDeadlines: Bool { !changedForDeadlines.isEmpty }

    /// Whether the record at `index` changed since the deadline index last looked.
    func isPendingForDeadlines(_ index: Int) -> Bool { isChangedForDeadlines[index] }

    /// The records changed since the last call, in the order they first changed; forgotten.
    mutating func takeChangedForDeadlines() -> [Int] {
        let changed = changedForDeadlines
        for index in changed { isChangedForDeadlines[index] = false }
        changedForDeadlines.removeAll(keepingCapacity: true)
        return changed
    }

    #if DEBUG
    /// The records changed since the invariants were last checked; forgotten.
    mutating func takeChangedForInvariants() -> [Int] {
        let changed = changedForInvariants
        for index in changed { isChangedForInvariants[index] = false }
        changedForInvariants.removeAll(keepingCapacity: true)
        return changed
    }
    #endif
}
