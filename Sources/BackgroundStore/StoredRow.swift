import BackgroundCore
import GRDB

/// One row read from the store, with accessors that validate each value instead of trapping.
///
/// GRDB's `row["column"] as Int` stops the process on a `NULL` or a value of the wrong type;
/// these accessors throw ``StoreError/Code-swift.struct/invalidRow`` naming the table, the row
/// and the column, so a damaged or hand-edited store is reported, never skipped or fatal.
struct StoredRow {
    let row: Row
    /// The table the row comes from.
    let table: String
    /// The row's key for messages, for example `bundle_id 'com.example.notes'`.
    let key: String
    let path: String
    let clock: WallClock

    /// The error for this row: `problem` describes what is wrong with it.
    func invalid(_ problem: String) -> StoreError {
        StoreError(
            code: .invalidRow,
            path: path,
            message: "invalid row in \(path): table \(table), \(key): \(problem)"
        )
    }

    /// A `TEXT` value.
    func text(_ column: String) throws(StoreError) -> String {
        guard let value = try optionalText(column) else { throw invalid("\(column) is NULL") }
        return value
    }

    /// A `TEXT` value or `NULL`.
    func optionalText(_ column: String) throws(StoreError) -> String? {
        switch value(column).storage {
        case .null: return nil
        case .string(let text): return text
        default: throw invalid("\(column) is not text: \(value(column))")
        }
    }

    /// A boolean stored as the integer 0 or 1.
    func bool(_ column: String) throws(StoreError) -> Bool {
        switch value(column).storage {
        case .int64(0): return false
        case .int64(1): return true
        default: throw invalid("\(column) is not 0 or 1: \(value(column))")
        }
    }

    /// An integer.
    func integer(_ column: String) throws(StoreError) -> Int {
        switch value(column).storage {
        case .int64(let number): return Int(number)
        default: throw invalid("\(column) is not an integer: \(value(column))")
        }
    }

    /// A finite number.
    func real(_ column: String) throws(StoreError) -> Double {
        guard let number = try optionalReal(column) else { throw invalid("\(column) is NULL") }
        return number
    }

    /// A finite number or `NULL`.
    func optionalReal(_ column: String) throws(StoreError) -> Double? {
        switch value(column).storage {
        case .null: return nil
        case .double(let number) where number.isFinite: return number
        case .int64(let number): return Double(number)
        default: throw invalid("\(column) is not a finite number: \(value(column))")
        }
    }

    /// A wall-clock time (`…_unix_s`) as an instant of the current timeline.
    func instant(_ column: String) throws(StoreError) -> Instant {
        guard let instant = try optionalInstant(column) else { throw invalid("\(column) is NULL") }
        return instant
    }

    /// A wall-clock time or `NULL`.
    func optionalInstant(_ column: String) throws(StoreError) -> Instant? {
        guard let seconds = try optionalReal(column) else { return nil }
        guard let instant = StoredTime.instant(unixSeconds: seconds, clock: clock) else {
            throw invalid("\(column) is out of range: \(seconds)")
        }
        return instant
    }

    /// A duration in seconds (`…_s`).
    func duration(_ column: String) throws(StoreError) -> Duration {
        guard let duration = try optionalDuration(column) else { throw invalid("\(column) is NULL") }
        return duration
    }

    /// A duration in seconds or `NULL`.
    func optionalDuration(_ column: String) throws(StoreError) -> Duration? {
        guard let seconds = try optionalReal(column) else { return nil }
        guard let duration = StoredTime.duration(seconds: seconds) else {
            throw invalid("\(column) is out of range: \(seconds)")
        }
        return duration
    }

    private func value(_ column: String) -> DatabaseValue {
        // The non-generic subscript: it returns the stored value and never traps.
        let value: (any DatabaseValueConvertible)? = row[column]
        return value?.databaseValue ?? .null
    }
}
