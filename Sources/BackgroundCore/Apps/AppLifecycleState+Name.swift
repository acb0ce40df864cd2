extension AppLifecycleState {
    /// The state's one-word name, as scenarios' expectations and timelines write it:
    /// `notRunning`, `active`, `inactive`, `background`, `suspended`, `terminated` (any reason).
    public var name: String {
        switch self {
        case .notRunning: return "notRunning"
        case .active: return "active"
        case .inactive: return "inactive"
        case .background: return "background"
        case .suspended: return "suspended"
        case .terminated: return "terminated"
        }
    }
}
