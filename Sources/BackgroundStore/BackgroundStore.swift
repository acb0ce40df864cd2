public import BackgroundCore
import Foundation
import GRDB

/// The system's durable state in an SQLite database: pending requests, launches, app state.
///
/// A file store is a GRDB `DatabasePool` in WAL mode, so the daemon and an app can share the
/// file: readers never block the writer, and a writer waits up to ``busyTimeout`` for another
/// process's write to finish. Each ``apply(_:clock:)`` is one transaction: a process killed at
/// any point leaves the whole batch or none of it.
///
/// ```swift
/// let store = try BackgroundStore(path: "/var/lib/background/store.sqlite")
/// let clock = WallClock(unixSecondsAtOrigin: startTime)
/// for app in try store.load(clock: clock) { effects += system.handle(.restore(app), at: .zero) }
/// // … then, for every `.persist(change)` effect:
/// try store.apply([change], clock: clock)
/// ```
///
/// A file that is not a database, is damaged, belongs to another program or was written by a
/// newer version is reported as a ``StoreError`` and left exactly as it was.
public final class BackgroundStore: PersistentStore, Sendable {
    /// How long a write waits for another connection's write before failing (5 s).
    public static let busyTimeout: Duration = .seconds(5)

    /// The database file, or `:memory:` for an in-memory store.
    public let path: String
    /// The most launches kept per app; older ones are deleted in the batch that adds new ones.
    /// Matches `SchedulingPolicy.usageHistoryLimit` (500).
    public let launchLimit: Int
    private let writer: any DatabaseWriter

    /// Opens the store in the file at `path`, creating the file and its tables if needed.
    ///
    /// Opening checks the file (`PRAGMA quick_check`) and brings its schema up to date.
    ///
    /// ```swift
    /// let store = try BackgroundStore(path: "/var/lib/background/store.sqlite")
    /// ```
    ///
    /// - Parameters:
    ///   - path: The database file. Its directory must exist.
    ///   - launchLimit: The most launches kept per app.
    /// - Throws: ``StoreError`` with code `cannotOpen` (no such directory, no permission, another
    ///   program's database), `corrupt` (not a database, or damaged) or `schemaTooNew`. The file
    ///   is never deleted, recreated or changed then.
    public convenience init(path: String, launchLimit: Int = 500) throws(StoreError) {
        let opening = StoreOpening(path: path)
        let pool: DatabasePool
        do {
            // Check through a plain connection first: opening a pool switches the file to WAL
            // mode, which is a write, and a file that fails a check must stay as it was.
            try opening.check(try DatabaseQueue(path: path, configuration: Self.configuration()))
            pool = try DatabasePool(path: path, configuration: Self.configuration())
        } catch {
            throw StoreError(wrapping: error, as: .cannotOpen, path: path, action: "cannot open")
        }
        try self.init(writer: pool, opening: opening, launchLimit: launchLimit)
    }

    /// Creates an empty store in memory, for tests and for systems that keep nothing.
    ///
    /// ```swift
    /// let store = try BackgroundStore.inMemory()
    /// ```
    ///
    /// - Parameter launchLimit: The most launches kept per app.
    /// - Throws: ``StoreError`` if SQLite cannot create the database (out of memory).
    public static func inMemory(launchLimit: Int = 500) throws(StoreError) -> BackgroundStore {
        let opening = StoreOpening(path: ":memory:")
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(configuration: configuration())
        } catch {
            throw StoreError(wrapping: error, as: .cannotOpen, path: opening.path, action: "cannot open")
        }
        return try BackgroundStore(writer: queue, opening: opening, launchLimit: launchLimit)
    }

    private init(writer: any DatabaseWriter, opening: StoreOpening, launchLimit: Int) throws(StoreError) {
        precondition(launchLimit > 0, "launchLimit must be positive")
        self.writer = writer
        self.path = opening.path
        self.launchLimit = launchLimit
        try opening.migrate(writer)
    }

    /// Writes a batch of changes in one transaction: all of them, or none if any fails.
    ///
    /// A pending request saved with an identifier its app already has replaces the old one. An
    /// app gets a row the first time any change names it.
    ///
    /// ```swift
    /// try store.apply([.savePendingRequest("com.example.news", refresh)], clock: clock)
    /// ```
    ///
    /// - Parameters:
    ///   - changes: The changes, in order.
    ///   - clock: Converts the changes' instants to wall-clock time.
    /// - Throws: ``StoreError`` with code `writeFailed` (for example the disk is full, or another
    ///   process held the write lock for longer than ``busyTimeout``) or `corrupt`; nothing of
    ///   the batch was written then.
    public func apply(_ changes: [StoreChange], clock: WallClock) throws(StoreError) {
        guard !changes.isEmpty else { return }
        let launchLimit = launchLimit
        do {
            try writer.write { db in
                try StoreChangeWriter(db: db, clock: clock, launchLimit: launchLimit).write(changes)
            }
        } catch {
            throw StoreError(wrapping: error, as: .writeFailed, path: path, action: "cannot write to")
        }
    }

    /// Reads back every app's state, from one consistent snapshot.
    ///
    /// Apps come sorted by bundle identifier; each with its pending requests (oldest submission
    /// first), its launches (oldest first), its manifest if one was saved, and its state, or
    /// `nil` if no state was ever saved for it.
    ///
    /// ```swift
    /// for app in try store.load(clock: clock) { effects += system.handle(.restore(app), at: now) }
    /// ```
    ///
    /// - Parameter clock: Converts stored wall-clock times to instants of the current timeline.
    /// - Throws: ``StoreError`` with code `invalidRow` (naming the table and the row), `corrupt`
    ///   or `readFailed`. An unreadable store is never treated as empty.
    public func load(clock: WallClock) throws(StoreError) -> [PersistedApp] {
        let path = path
        do {
            return try writer.read { db in
                try PersistedAppReader(db: db, clock: clock, path: path).readApps()
            }
        } catch {
            throw StoreError(wrapping: error, as: .readFailed, path: path, action: "cannot read")
        }
    }

    /// Saves an app's manifest, which ``load(clock:)`` returns with the app.
    ///
    /// ```swift
    /// try store.saveManifest(AppManifest(bundleIdentifier: "com.example.news", backgroundModes: [.fetch]))
    /// ```
    ///
    /// - Parameter manifest: The manifest; it replaces any manifest saved for its app.
    /// - Throws: ``StoreError`` with code `writeFailed` or `corrupt`.
    public func saveManifest(_ manifest: AppManifest) throws(StoreError) {
        try apply([.saveManifest(manifest)], clock: WallClock(unixSecondsAtOrigin: 0))
    }

    /// Deletes everything the store keeps about an app (when it is uninstalled).
    ///
    /// - Parameter app: The app; an app the store does not know is ignored.
    /// - Throws: ``StoreError`` with code `writeFailed` or `corrupt`.
    public func deleteApp(_ app: AppID) throws(StoreError) {
        do {
            try writer.write { db in
                // Its pending requests and launches go with it (ON DELETE CASCADE).
                try db.execute(sql: "DELETE FROM apps WHERE bundle_id = ?", arguments: [app.bundleIdentifier])
            }
        } catch {
            throw StoreError(wrapping: error, as: .writeFailed, path: path, action: "cannot write to")
        }
    }

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.label = "BackgroundStore"
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout.seconds)
        return configuration
    }
}
