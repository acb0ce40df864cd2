import HeapModule

/// The apps' next deadlines, ordered: the earliest is found without visiting every app.
///
/// Each app with a deadline has one entry, its earliest (``BackgroundSystem/deadline(ofAppAt:)``);
/// entries order by instant, then by the app's record index (the order the system first saw
/// the apps), never by a set's or a dictionary's order. The system updates an app's entry when
/// its record changed (``AppTable``); a replaced entry stays in the heap until it reaches the
/// top, where it is recognised as stale and dropped, and the heap is rebuilt when stale
/// entries outnumber live ones.
struct DeadlineIndex: Sendable {
    struct Entry: Comparable, Sendable {
        let at: Instant
        let app: Int

        static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.at, lhs.app) < (rhs.at, rhs.app) }
    }

    private var heap = Heap<Entry>()
    /// Each app's entry, by record index; `nil` when it has no deadline.
    private var current: [Instant?] = []
    /// Heap insertions and removals so far: a measure of work for the tests.
    private(set) var operations = 0

    /// Entries in the heap, stale ones included.
    var heapCount: Int { heap.count }

    /// The entry of the app at `index`.
    func deadline(ofAppAt index: Int) -> Instant? {
        index < current.count ? current[index] : nil
    }

    /// Sets the app's entry (its earliest deadline, or `nil` for none).
    mutating func set(_ at: Instant?, forAppAt index: Int) {
        while current.count <= index { current.append(nil) }
        guard current[index] != at else { return }
        current[index] = at
        guard let at else { return }
        heap.insert(Entry(at: at, app: index))
        operations &+= 1
        if heap.count > 2 * current.count + 64 { rebuild() }
    }

    /// The earliest entry, and its app; stale entries met on the way are dropped.
    mutating func earliest() -> Entry? {
        while let top = heap.min {
            if current[top.app] == top.at { return top }
            _ = heap.removeMin()
            operations &+= 1
        }
        return nil
    }

    /// Rebuilds the heap from the live entries alone.
    private mutating func rebuild() {
        let live = current.indices.compactMap { index in current[index].map { Entry(at: $0, app: index) } }
        heap = Heap(live)
        operations &+= live.count
    }
}
