import BackgroundCore

/// The transfers the simulator's engine holds, kept in key order.
///
/// The engine walks them in key order at every timer, count and decision (so that the same seed
/// gives the same run); a dictionary made it sort its keys and hash their strings each time, and
/// copy each transfer out and back to change it. A simulated phone holds a handful of transfers,
/// so an array sorted by key, searched by comparing keys, costs less, and ``update(_:_:)`` and
/// ``subscript(position:)`` change a transfer where it lies.
struct TransferTable {
    /// The keys, in order (`TransferKey`'s: app, session, task).
    private(set) var keys: [TransferKey] = []
    /// The transfers, in the order of their keys.
    private var transfers: [SimulatedTransfer] = []

    /// Whether there is none.
    var isEmpty: Bool { keys.isEmpty }

    /// The positions, in key order.
    var indices: Range<Int> { transfers.indices }

    /// The transfers, in key order.
    var values: [SimulatedTransfer] { transfers }

    /// Where the transfer with this key is, if held.
    func index(of key: TransferKey) -> Int? {
        // The task's number first: keys of one app and session differ only there, and their
        // strings are equal but rarely the same storage.
        keys.firstIndex { $0.task == key.task && $0.session == key.session && $0.app == key.app }
    }

    /// The transfer with this key: setting `nil` removes it, setting a new one puts it in order.
    subscript(key: TransferKey) -> SimulatedTransfer? {
        get { index(of: key).map { transfers[$0] } }
        set {
            if let index = index(of: key) {
                if let newValue {
                    transfers[index] = newValue
                } else {
                    keys.remove(at: index)
                    transfers.remove(at: index)
                }
            } else if let newValue {
                let index = keys.firstIndex { key < $0 } ?? keys.endIndex
                keys.insert(key, at: index)
                transfers.insert(newValue, at: index)
            }
        }
    }

    /// The transfer at a position, read and changed in place.
    subscript(position position: Int) -> SimulatedTransfer {
        _read { yield transfers[position] }
        _modify { yield &transfers[position] }
    }

    /// Changes the transfer with this key in place; `nil` (and nothing done) if none is held.
    @discardableResult
    mutating func update<Result>(_ key: TransferKey, _ body: (inout SimulatedTransfer) -> Result) -> Result? {
        guard let index = index(of: key) else { return nil }
        return body(&transfers[index])
    }
}
