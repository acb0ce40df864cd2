/// An error from the background store: what failed, on which file, and SQLite's result code.
///
/// The store never treats a file it cannot read as empty, and never deletes or recreates one:
/// it throws a `StoreError` and leaves the file as it was, for a person to look at.
///
/// ```swift
/// do {
///     let store = try BackgroundStore(path: "/var/lib/background/store.sqlite")
/// } catch let error as StoreError where error.code == .schemaTooNew {
///     print("written by a newer version: \(error.message)")
/// }
/// ```
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure an error is. New codes may be added: switch with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case cannotOpen
            case corrupt
            case schemaTooNew
            case writeFailed
            case readFailed
            case invalidRow
            case notFound
            case notAStore
            case unsafePath
            case unexpectedSchema
            case readOnly
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The file could not be opened: a missing directory, no permission, a locked file, or
        /// an SQLite database that belongs to another program.
        public static let cannotOpen = Code(.cannotOpen)
        /// The file is not an SQLite database, or its pages are damaged (truncated, overwritten).
        public static let corrupt = Code(.corrupt)
        /// The database was migrated by a newer version of this library: it records migrations
        /// this version does not know, so reading or writing it could lose data.
        public static let schemaTooNew = Code(.schemaTooNew)
        /// A batch of changes could not be written; none of it was.
        public static let writeFailed = Code(.writeFailed)
        /// The store could not be read.
        public static let readFailed = Code(.readFailed)
        /// A stored row breaks the schema's rules (an unknown kind, a missing value); the message
        /// names the table and the row. Such a row is never skipped.
        public static let invalidRow = Code(.invalidRow)
        /// A store opened for reading does not exist; nothing was created.
        public static let notFound = Code(.notFound)
        /// The file is not a background store: an empty file opened for reading.
        public static let notAStore = Code(.notAStore)
        /// The path is a symbolic link (and links were not allowed), or not a regular file;
        /// the message names the path. See ``BackgroundStore/init(path:launchLimit:followsSymbolicLinks:)``.
        public static let unsafePath = Code(.unsafePath)
        /// The database holds schema objects the migrations did not make (a trigger, a view, a
        /// table, an index), lacks one they made, or has one changed; the message names it.
        /// Such a store is refused before any of its SQL runs.
        public static let unexpectedSchema = Code(.unexpectedSchema)
        /// The store cannot be written: the file, or its directory (where SQLite keeps its
        /// `-wal` and `-shm` files), is read-only for this process.
        public static let readOnly = Code(.readOnly)

        /// The code's name, for example `corrupt`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The database file, or `:memory:` for an in-memory store.
    public var path: String
    /// SQLite's extended result code, when SQLite reported the failure (`26` is `SQLITE_NOTADB`).
    public var sqliteResultCode: Int32?
    /// What went wrong, naming the file and, for an invalid row, the table and the row.
    public var message: String

    /// Creates an error.
    public init(code: Code, path: String, sqliteResultCode: Int32? = nil, message: String) {
        self.code = code
        self.path = path
        self.sqliteResultCode = sqliteResultCode
        self.message = message
    }

    /// SQLite's primary result code (the low byte of the extended one), for example `11` for
    /// `SQLITE_CORRUPT`.
    public var sqlitePrimaryResultCode: Int32? { sqliteResultCode.map { $0 & 0xFF } }

    /// The code, the message, and SQLite's result code if there is one.
    public var description: String {
        let sqlite = sqliteResultCode.map { " (SQLite result code \($0))" } ?? ""
        return "StoreError.\(code): \(message)\(sqlite)"
    }
}
