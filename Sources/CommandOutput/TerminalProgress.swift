import Foundation

/// Progress for long work, on standard error and only when it is a terminal: one line
/// redrawn in place, at most a few times a second, erased at the end. Nothing at all when
/// standard error is piped or redirected, so logs and scripts see only the final count the
/// command prints itself.
public final class TerminalProgress: @unchecked Sendable {
    // @unchecked: used from one task at a time (the command's loop); the state is plain.
    private let enabled: Bool
    private let total: Int
    private let label: String
    private var lastDraw = ContinuousClock.now
    private var drewSomething = false

    /// Progress over `total` units called `label` ("seeds"); `enabled` defaults to whether
    /// standard error is a terminal.
    public init(total: Int, label: String, enabled: Bool? = nil) {
        self.total = total
        self.label = label
        self.enabled = enabled ?? Self.standardErrorIsTerminal
    }

    /// Whether standard error is a terminal (not a pipe, not a file).
    public static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether anything is drawn.
    public var isEnabled: Bool { enabled }

    /// Reports that `done` units of `total` are finished, with an optional note.
    public func update(done: Int, note: String = "") {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(200) || done == total else { return }
        lastDraw = now
        drewSomething = true
        let percent = total > 0 ? done * 100 / total : 100
        let line = "\(done)/\(total) \(label) (\(percent) %)\(note.isEmpty ? "" : " · " + note)"
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    /// Erases the progress line, before the command prints its result.
    public func finish() {
        guard enabled, drewSomething else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
