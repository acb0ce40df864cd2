import GRDB

extension StoreError {
    /// Wraps what a database access threw, keeping SQLite's result code.
    ///
    /// A `StoreError` passes through unchanged. An SQLite error whose primary code says the file
    /// is damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) becomes ``Code-swift.struct/corrupt``
    /// whatever `code` was asked for; any other error gets `code`.
    ///
    /// - Parameters:
    ///   - error: What the access threw.
    ///   - code: The code for a failure that is not damage, for example `writeFailed`.
    ///   - path: The database file.
    ///   - action: What was being done, as a phrase before the path: `"cannot write to"`.
    init(wrapping error: any Error, as code: Code, path: String, action: String) {
        if let storeError = error as? StoreError {
            self = storeError
            return
        }
        guard let databaseError = error as? DatabaseError else {
            self.init(code: code, path: path, message: "\(action) \(path): \(error)")
            return
        }
        let primary = databaseError.resultCode
        let damaged = primary == .SQLITE_CORRUPT || primary == .SQLITE_NOTADB
        let reason = databaseError.message ?? "SQLite error \(databaseError.extendedResultCode.rawValue)"
        self.init(
            code: damaged ? .corrupt : code,
            path: path,
            sqliteResultCode: databaseError.extendedResultCode.rawValue,
            message: "\(action) \(path): \(reason)"
        )
    }
}
