/// One entry of `/sys/class/power_supply`, as the kernel's sysfs-class-power ABI describes it.
public struct PowerSupply: Sendable, Hashable {
    /// The `type` attribute.
    public enum Kind: Sendable, Hashable {
        /// `Mains`: an AC adapter.
        case mains
        /// `USB` (and the older `USB_C`, `USB_PD`, `USB_DCP`, … types): power over USB.
        case usb
        /// `Wireless`: a charging pad.
        case wireless
        /// `Battery`.
        case battery
        /// `UPS`: an uninterruptible supply the machine runs from.
        case ups
        /// Any other type, kept as written.
        case other(String)

        /// The kind for a `type` attribute's text.
        public init(_ text: String) {
            switch text {
            case "Mains": self = .mains
            case "Wireless": self = .wireless
            case "Battery": self = .battery
            case "UPS": self = .ups
            case let usb where usb == "USB" || usb.hasPrefix("USB_"): self = .usb
            default: self = .other(text)
            }
        }

        /// Whether this kind powers the machine from outside when `online` is 1.
        public var isExternal: Bool {
            switch self {
            case .mains, .usb, .wireless: return true
            case .battery, .ups, .other: return false
            }
        }
    }

    /// A battery's `status` attribute.
    public enum Status: String, Sendable, Hashable {
        case charging = "Charging"
        case discharging = "Discharging"
        case notCharging = "Not charging"
        case full = "Full"
        case unknown = "Unknown"
    }

    /// The directory name (`AC`, `BAT0`, `ucsi-source-psy-USBC000:001`).
    public var name: String
    /// The `type`.
    public var kind: Kind
    /// `online` for adapters (`nil` when missing or unreadable).
    public var online: Bool?
    /// `present` (`nil` when missing: the attribute is optional, absence means present).
    public var present: Bool?
    /// `capacity` in percent, 0...100.
    public var capacity: Int?
    /// `status` for batteries.
    public var status: Status?
    /// `scope`: `Device` for a peripheral's battery (a mouse, a headset), which never powers
    /// the machine; `System` or absent for the machine's own.
    public var isDeviceScope: Bool
    /// What could not be read or made sense of, one line each (`capacity "abc" is not a number`).
    public var problems: [String]

    /// A supply with the given attributes.
    public init(
        name: String,
        kind: Kind,
        online: Bool? = nil,
        present: Bool? = nil,
        capacity: Int? = nil,
        status: Status? = nil,
        isDeviceScope: Bool = false,
        problems: [String] = []
    ) {
        self.name = name
        self.kind = kind
        self.online = online
        self.present = present
        self.capacity = capacity
        self.status = status
        self.isDeviceScope = isDeviceScope
        self.problems = problems
    }

    /// Whether this is a battery of the machine itself that is there.
    public var isSystemBattery: Bool {
        kind == .battery && !isDeviceScope && present != false
    }
}
