/// The version every command of the project prints for `--version` (`bgctl`, `bgctl doctor`,
/// `backgroundd`): one number, so the three never disagree.
public enum ProjectVersion {
    /// `0.1.0`: no release is tagged yet.
    public static let current = "0.1.0"
}
