public import BackgroundCore
import Foundation
package import GRDB

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
    /// Whether the store was opened with ``openForReading(path:followsSymbolicLinks:)``.
    public let isReadOnly: Bool
    private let writer: any DatabaseWriter

    /// Opens the store in the file at `path`, creating the file and its tables if needed.
    ///
    /// Before any of the file's SQL runs, opening checks the path (not a symbolic link unless
    /// `followsSymbolicLinks`, a regular file; a missing one is created with mode 0600, never
    /// through a link), the file's structure (`PRAGMA quick_check`), its owner and version, and
    /// that its schema is exactly what the migrations made (``StoreError/Code-swift.struct/unexpectedSchema``
    /// names any trigger, view, table or index they did not). Then it checks that the file can
    /// be written, and brings the schema up to date. Every connection runs in SQLite's defensive
    /// mode with `trusted_schema` off (``ConnectionSettings``).
    ///
    /// ```swift
    /// let store = try BackgroundStore(path: "/var/lib/background/store.sqlite")
    /// ```
    ///
    /// - Parameters:
    ///   - path: The database file. Its directory must exist.
    ///   - launchLimit: The most launches kept per app.
    ///   - followsSymbolicLinks: Whether a symbolic link at `path` is followed (off: refused).
    /// - Throws: ``StoreError`` with code `cannotOpen` (no such directory, no permission, another
    ///   program's database), `unsafePath`, `corrupt` (not a database, or damaged),
    ///   `unexpectedSchema`, `schemaTooNew` or `readOnly` (the process cannot write the file or
    ///   its directory). The file is never deleted, recreated or changed then.
    public convenience init(path: String, launchLimit: Int = 500, followsSymbolicLinks: Bool = false) throws(StoreError)
    {
        let file = StoreFile(path: path, followsSymbolicLinks: followsSymbolicLinks)
        try file.prepareForWriting()
        StoreFileHooks.runBetweenCheckAndOpen(path)
        let opening = StoreOpening(path: path)
        let pool: DatabasePool
        do {
            // Check through a plain connection first: opening a pool switches the file to WAL
            // mode, which is a write, and a file that fails a check must stay as it was.
            try opening.check(try DatabaseQueue(path: path, configuration: Self.configuration(file: file)))
            pool = try DatabasePool(path: path, configuration: Self.configuration(file: file))
            try opening.checkWritable(pool)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
            // Opening a pool writes (it switches the file to WAL mode): a read-only file fails here.
            throw opening.readOnly(error)
        } catch {
            throw StoreError(wrapping: error, as: .cannotOpen, path: path, action: "cannot open")
        }
        try self.init(writer: pool, opening: opening, launchLimit: launchLimit, isReadOnly: false)
    }

    /// Opens an existing store to read it, never writing to it or creating anything.
    ///
    /// The file is opened read-only; when it has no `-wal` file, or an empty one (a store
    /// closed cleanly, see ``checkpoint()``), it is opened immutable, so no lock or `-shm` file
    /// is created and a store in a read-only directory can be read. The same checks as for writing run first.
    /// ``apply(_:clock:)`` on such a store throws ``StoreError/Code-swift.struct/readOnly``.
    ///
    /// ```swift
    /// let store = try BackgroundStore.openForReading(path: "/var/lib/background/store.sqlite")
    /// let apps = try store.load(clock: WallClock(unixSecondsAtOrigin: Date().timeIntervalSince1970))
    /// ```
    ///
    /// - Parameters:
    ///   - path: The database file.
    ///   - followsSymbolicLinks: Whether a symbolic link at `path` is followed (off: refused).
    /// - Throws: ``StoreError`` with code `notFound` (no such file), `notAStore` (an empty file,
    ///   or a database without the store's tables), `unsafePath`, `cannotOpen`, `corrupt`,
    ///   `unexpectedSchema` or `schemaTooNew`.
    public static func openForReading(
        path: String,
        followsSymbolicLinks: Bool = false
    ) throws(StoreError)
        -> BackgroundStore
    {
        let file = StoreFile(path: path, followsSymbolicLinks: followsSymbolicLinks)
        let name = try file.prepareForReading()
        StoreFileHooks.runBetweenCheckAndOpen(path)
        let opening = StoreOpening(path: path)
        let queue: DatabaseQueue
        do {
            var configuration = Self.configuration(file: file)
            configuration.readonly = true
            queue = try DatabaseQueue(path: name, configuration: configuration)
            try opening.check(queue, requiresTables: true)
        } catch {
            throw StoreError(wrapping: error, as: .cannotOpen, path: path, action: "cannot open")
        }
        return BackgroundStore(reading: queue, path: path)
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
            queue = try DatabaseQueue(configuration: configuration(file: nil))
        } catch {
            throw StoreError(wrapping: error, as: .cannotOpen, path: opening.path, action: "cannot open")
        }
        return try BackgroundStore(writer: queue, opening: opening, launchLimit: launchLimit, isReadOnly: false)
    }

    private init(
        writer: any DatabaseWriter,
        opening: StoreOpening,
        launchLimit: Int,
        isReadOnly: Bool
    ) throws(StoreError) {
        precondition(launchLimit > 0, "launchLimit must be positive")
        self.writer = writer
        self.path = opening.path
        self.launchLimit = launchLimit
        self.isReadOnly = isReadOnly
        try opening.migrate(writer)
    }

    private init(reading queue: DatabaseQueue, path: String) {
        self.writer = queue
        self.path = path
        self.launchLimit = 500
        self.isReadOnly = true
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
        try refuseIfReadOnly()
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
        try refuseIfReadOnly()
        do {
            try writer.write { db in
                // Its pending requests and launches go with it (ON DELETE CASCADE).
                try db.execute(sql: "DELETE FROM apps WHERE bundle_id = ?", arguments: [app.bundleIdentifier])
                try db.execute(sql: "DELETE FROM transfers WHERE bundle_id = ?", arguments: [app.bundleIdentifier])
            }
        } catch {
            throw StoreError(wrapping: error, as: .writeFailed, path: path, action: "cannot write to")
        }
    }

    /// Runs `body` in one write transaction, refusing a read-only store.
    func write<T>(_ action: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        try refuseIfReadOnly()
        do {
            return try writer.write(body)
        } catch {
            throw StoreError(wrapping: error, as: .writeFailed, path: path, action: action)
        }
    }

    /// Runs `body` on one consistent snapshot.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.read(body)
        } catch {
            throw StoreError(wrapping: error, as: .readFailed, path: path, action: "cannot read")
        }
    }

    /// Copies everything in the `-wal` file into the main file and empties the `-wal` file
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`), so that the main file alone holds the store: call
    /// it on a clean shutdown, before a backup or a copy. Writes already survive a crash
    /// without it (SQLite replays the `-wal` file at the next open).
    ///
    /// - Throws: ``StoreError`` with code `writeFailed` (for example another connection was
    ///   reading for longer than ``busyTimeout``). Nothing is lost then; the `-wal` file still
    ///   holds the data. A read-only or in-memory store has nothing to do.
    public func checkpoint() throws(StoreError) {
        guard !isReadOnly, path != ":memory:" else { return }
        do {
            try writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw StoreError(wrapping: error, as: .writeFailed, path: path, action: "cannot checkpoint")
        }
    }

    /// The safety settings of the store's writing connection, read back from SQLite.
    ///
    /// - Throws: ``StoreError`` with code `readFailed` if SQLite cannot report them.
    public func connectionSettings() throws(StoreError) -> ConnectionSettings {
        do {
            return try writer.writeWithoutTransaction { db in try ConnectionSettings.read(db) }
        } catch {
            throw StoreError(wrapping: error, as: .readFailed, path: path, action: "cannot read the settings of")
        }
    }

    /// Runs `body` on the store's writing connection, outside a transaction: for tests that
    /// attack the store through its own connection.
    package func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.writeWithoutTransaction(body)
    }

    private func refuseIfReadOnly() throws(StoreError) {
        guard isReadOnly else { return }
        throw StoreError(
            code: .readOnly,
            path: path,
            message: "cannot write to \(path): it was opened for reading only"
        )
    }

    private static func configuration(file: StoreFile?) -> Configuration {
        var configuration = Configuration()
        configuration.label = "BackgroundStore"
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout.seconds)
        configuration.prepareDatabase { db in
            try ConnectionSettings.secure(db)
            try file?.verifyOpened(db)
        }
        return configuration
    }
}
