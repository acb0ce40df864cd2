/// What a background transfer needs before the system starts it: the session's and the task's
/// scheduling hints, as `URLSessionConfiguration` and `URLSessionTask` carry them.
///
/// ```swift
/// var requirements = TransferRequirements()
/// requirements.isDiscretionary = true          // waits for external power and an unmetered network
/// requirements.allowsCellularAccess = false    // never on cellular
/// ```
public struct TransferRequirements: Sendable, Hashable, Codable {
    /// `isDiscretionary`, or a transfer created while the app was in the background (reference
    /// §5.1: "treated as discretionary"): it waits for external power and an unmetered network,
    /// and for Low Power Mode to end (**ours**: Apple says only "plugged in or connected to Wi-Fi").
    public var isDiscretionary: Bool
    /// `allowsCellularAccess` (Apple's default: `true`).
    public var allowsCellularAccess: Bool
    /// `allowsExpensiveNetworkAccess` (Apple's default: `true`): cellular and hotspots are expensive.
    public var allowsExpensiveNetworkAccess: Bool
    /// `allowsConstrainedNetworkAccess` (Apple's default: `true`): Low Data Mode is constrained.
    public var allowsConstrainedNetworkAccess: Bool
    /// Whether the app created the transfer while it was in the background: it does not start
    /// before the app's relaunch delay has passed (reference §5.6).
    public var createdInBackground: Bool
    /// `URLSessionTask.priority`, from 0 (low) to 1 (high); Apple's default is 0.5. Among
    /// eligible transfers the higher priority starts first (then the older).
    public var priority: Double

    /// Creates requirements with Apple's defaults: not discretionary, every network allowed.
    public init(
        isDiscretionary: Bool = false,
        allowsCellularAccess: Bool = true,
        allowsExpensiveNetworkAccess: Bool = true,
        allowsConstrainedNetworkAccess: Bool = true,
        createdInBackground: Bool = false,
        priority: Double = 0.5
    ) {
        self.isDiscretionary = isDiscretionary || createdInBackground
        self.allowsCellularAccess = allowsCellularAccess
        self.allowsExpensiveNetworkAccess = allowsExpensiveNetworkAccess
        self.allowsConstrainedNetworkAccess = allowsConstrainedNetworkAccess
        self.createdInBackground = createdInBackground
        self.priority = priority.isNaN ? 0.5 : min(1, max(0, priority))
    }
}

/// The network as transfers see it: the device's network, and whether it is expensive
/// (cellular, a personal hotspot) or constrained (Low Data Mode).
///
/// ```swift
/// let hotspot = TransferNetwork(network: .wifi, isExpensive: true)
/// hotspot.isUnmetered   // false: a discretionary transfer waits
/// ```
public struct TransferNetwork: Sendable, Hashable, Codable {
    /// None, Wi-Fi (or Ethernet) or cellular.
    public var network: DeviceConditions.Network
    /// Metered: always for cellular, and for Wi-Fi marked so (a hotspot).
    public var isExpensive: Bool
    /// Low Data Mode.
    public var isConstrained: Bool

    /// Creates a network; cellular is always expensive.
    public init(network: DeviceConditions.Network, isExpensive: Bool = false, isConstrained: Bool = false) {
        self.network = network
        self.isExpensive = isExpensive || network == .cellular
        self.isConstrained = isConstrained
    }

    /// Whether a discretionary transfer may use it: connected, and neither expensive nor constrained.
    public var isUnmetered: Bool { network != .none && !isExpensive && !isConstrained }
}
