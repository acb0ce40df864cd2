import BackgroundCore

#if canImport(Glibc)
import Glibc
#endif

/// A system call that failed: which call, on what, and the `errno` it set.
///
/// ```text
/// openat(control): Permission denied (errno 13)
/// ```
package struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call, for example `openat`.
    package let call: String
    /// What it was called on (a path component, a socket name), if anything helps the reader.
    package let subject: String?
    /// The `errno` value.
    package let code: Int32

    package init(call: String, subject: String? = nil, code: Int32) {
        self.call = call
        self.subject = subject
        self.code = code
    }

    /// The C library's name for the error, such as `Permission denied`.
    package var reason: String { String(cString: strerror(code)) }

    package var description: String {
        let target = subject.map { "(\(ControlCharacters.escaped($0)))" } ?? ""
        return "\(call)\(target): \(reason) (errno \(code))"
    }
}
