/// A slot an app's released requests can wait for.
enum Slot: Sendable, Hashable {
    /// A place among the apps running tasks (``SchedulingPolicy/maximumAppsRunningTasks``).
    case app
    /// A continued-processing slot (``SchedulingPolicy/maximumConcurrentContinuedTasks``).
    case continued
}

/// The apps whose released requests wait for a free slot, first come first served: one line
/// per kind of slot, each app in a line at most once.
///
/// A line is looked at only while its slot is free, and from its head: a completion costs in
/// proportion to the slots it frees, never to the number of apps waiting (with 1,000 apps and
/// 4 slots, re-examining every waiter at every completion was most of the core's time).
struct SlotLines: Sendable {
    private var appLine = FIFOLine()
    private var continuedLine = FIFOLine()

    /// Puts the app at the end of the line for `slot`, unless it is already in it.
    mutating func wait(_ app: Int, for slot: Slot) {
        switch slot {
        case .app: appLine.append(app)
        case .continued: continuedLine.append(app)
        }
    }

    /// Takes the app at the head of the line for `slot`.
    mutating func next(for slot: Slot) -> Int? {
        switch slot {
        case .app: appLine.removeFirst()
        case .continued: continuedLine.removeFirst()
        }
    }

    /// How many apps wait for `slot`.
    func count(for slot: Slot) -> Int {
        switch slot {
        case .app: appLine.count
        case .continued: continuedLine.count
        }
    }

    /// Whether the app waits in either line.
    func isWaiting(_ app: Int) -> Bool {
        appLine.contains(app) || continuedLine.contains(app)
    }

    /// The apps waiting for `slot`, head first.
    func waiting(for slot: Slot) -> [Int] {
        switch slot {
        case .app: appLine.elements
        case .continued: continuedLine.elements
        }
    }
}

/// A first-in first-out line of app indices with O(1) membership, append and removal at the head.
private struct FIFOLine: Sendable {
    private var storage: [Int] = []
    private var head = 0
    private var members: Set<Int> = []

    var count: Int { storage.count - head }

    var elements: [Int] { Array(storage[head...]) }

    func contains(_ app: Int) -> Bool { members.contains(app) }

    mutating func append(_ app: Int) {
        guard members.insert(app).inserted else { return }
        storage.append(app)
    }

    mutating func removeFirst() -> Int? {
        guard head < storage.count else { return nil }
        let app = storage[head]
        head += 1
        members.remove(app)
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)  // amortized: each element is moved at most once per halving
            head = 0
        }
        return app
    }
}
