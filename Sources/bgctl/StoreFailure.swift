import BackgroundStore
import CommandOutput

extension CommandFailure {
    /// The failure for a store a command could not use: one line naming the path and what is
    /// wrong, and the exit code from the table in `docs/exit-codes.md`.
    ///
    /// 66 for a missing or unreadable file; 65 for a file that is not a usable store (empty,
    /// damaged, an unexpected schema, a symbolic link, a newer version, an invalid row); 77 for
    /// a store this process may not write; 74 for a read or a write that failed.
    init(store error: StoreError) {
        let status: ExitStatus
        switch error.code {
        case .notFound, .cannotOpen: status = .inputMissing
        case .readOnly: status = .permissionDenied
        case .writeFailed, .readFailed: status = .ioError
        default: status = .badInput  // corrupt, notAStore, unsafePath, unexpectedSchema, schemaTooNew, invalidRow
        }
        if error.code == .notFound {
            // As for every other missing input: `bgctl why: s.sqlite: No such file or directory`.
            self.init(status, error.path, "No such file or directory")
            return
        }
        // The store's messages name the path already; SQLite's words may hold line breaks.
        let line = error.message.split(whereSeparator: \.isNewline).joined(separator: "; ")
        self.init(status, "", line)
    }
}
