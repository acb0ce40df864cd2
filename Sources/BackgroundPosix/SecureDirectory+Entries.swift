#if canImport(Glibc)
package import Glibc
#endif

extension SecureDirectory {
    /// Writes `bytes` to `name` atomically with mode `0600`, whatever the umask.
    ///
    /// The bytes go to a new temporary file (`O_CREAT | O_EXCL | O_NOFOLLOW`, then `fchmod`
    /// `0600`), are synced, and the file is renamed over `name` with `renameat`: a reader sees
    /// the old file or the whole new one, and nothing else can be made to receive the bytes.
    ///
    /// - Throws: ``SystemCallError`` from the call that failed; the temporary file is removed.
    package func writeAtomically(_ name: String, _ bytes: some Collection<UInt8>) throws(SystemCallError) {
        try Self.checkEntryName(name)
        var suffix = SystemRandomNumberGenerator()
        let temporary = ".\(name).\(String(suffix.next() as UInt64, radix: 16)).tmp"
        let file = try SystemCall.openAt(
            descriptor,
            temporary,
            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
            mode: 0o600
        )
        do {
            try SystemCall.changeMode(of: file, to: 0o600)
            try SystemCall.writeAll(file, bytes)
            try SystemCall.synchronize(file)
            SystemCall.close(file)
            try SystemCall.renameAt(descriptor, temporary, to: name)
        } catch {
            SystemCall.close(file)
            try? SystemCall.unlinkAt(descriptor, temporary)
            throw error
        }
    }

    /// The names in the directory, sorted, without `.` and `..`.
    package func entries() throws(SystemCallError) -> [String] {
        try SystemCall.entries(of: descriptor)
    }

    /// The type, owner and mode of an entry, without following a link.
    package func status(of name: String) throws(SystemCallError) -> stat {
        try SystemCall.statusAt(descriptor, name)
    }

    /// Removes `name` if it is a socket owned by this user: one `unlinkat`, never a directory,
    /// never through a link.
    package func removeSocket(_ name: String) throws(SystemCallError) {
        try Self.checkEntryName(name)
        let status = try status(of: name)
        guard status.st_mode & S_IFMT == S_IFSOCK, status.st_uid == SystemCall.effectiveUserID else { return }
        try SystemCall.unlinkAt(descriptor, name)
    }

    /// A path that reaches `name` inside exactly this directory, whatever has happened to
    /// ``path`` since it was checked: `/proc/self/fd/<descriptor>/<name>`. Short enough for a
    /// socket address however deep the directory is.
    package func pathThroughDescriptor(_ name: String) -> String {
        "/proc/self/fd/\(descriptor)/\(name)"
    }

    /// Refuses names that would leave the directory.
    static func checkEntryName(_ name: String) throws(SystemCallError) {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
            throw SystemCallError(call: "entry name", subject: name, code: EINVAL)
        }
    }
}
