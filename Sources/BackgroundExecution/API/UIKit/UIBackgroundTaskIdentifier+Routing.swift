import BackgroundCore
import Synchronization

/// Identifiers that name their app: how an `endBackgroundTask(_:)` made where the app cannot be
/// told (a background thread of the simulator's process) still reaches the app that began the
/// task, and only that app.
///
/// The simulator hands each process's app identifiers whose high bits are a tag unique in the
/// test process (``newTag()``): `tag << 32 | id`. An app's own process never sees tagged
/// identifiers, so nothing changes there (its identifiers stay small).
package enum AssertionRoutes {
    /// A connection that tags its identifiers, and so must never route another's.
    package protocol Tagging: AnyObject, Sendable {
        /// Ends the task of one of this connection's tagged identifiers.
        func endTagged(_ identifier: Int)
    }

    private struct Entry {
        weak var connection: (any Tagging)?
    }

    private static let table = Mutex<[Int: Entry]>([:])
    private static let nextTag = Atomic<Int>(1)

    /// The number of bits of an identifier below its tag.
    package static let tagShift = 32

    /// A tag no other connection in this process has had.
    package static func newTag() -> Int {
        nextTag.add(1, ordering: .relaxed).oldValue
    }

    /// Routes a tag's identifiers to `connection` until ``remove(_:)``.
    package static func register(_ connection: any Tagging, tag: Int) {
        table.withLock { $0[tag] = Entry(connection: connection) }
    }

    /// Forgets a tag (its process ended).
    package static func remove(_ tag: Int) {
        table.withLock { _ = $0.removeValue(forKey: tag) }
    }

    /// The tag of a tagged identifier, or `nil` for a plain one.
    package static func tag(of identifier: Int) -> Int? {
        let tag = identifier >> tagShift
        return tag > 0 ? tag : nil
    }

    /// The connection whose process began this tagged identifier, while it runs.
    package static func connection(for identifier: Int) -> (any Tagging)? {
        guard let tag = tag(of: identifier) else { return nil }
        return table.withLock { $0[tag]?.connection }
    }
}
