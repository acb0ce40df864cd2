public import Foundation

/// The outcome of a background fetch; Apple's raw values (S17).
public enum UIBackgroundFetchResult: UInt, Sendable, Hashable {
    /// New data was downloaded.
    case newData = 0
    /// There was no new data.
    case noData = 1
    /// The fetch failed.
    case failed = 2
}

extension UIApplication {
    /// The smallest fetch interval the system supports: let the system decide how often.
    ///
    /// Apple does not publish its value; ours is 0, which the system reads as its own minimum
    /// (`SchedulingPolicy.minimumBackgroundLaunchInterval`, 15 minutes).
    public static let backgroundFetchIntervalMinimum: TimeInterval = 0

    /// An interval large enough that no fetch happens: the default (S17).
    public static let backgroundFetchIntervalNever: TimeInterval = .greatestFiniteMagnitude

    /// Sets the minimum time between background fetches; advisory (S17).
    ///
    /// The default is ``backgroundFetchIntervalNever``. It has no effect without
    /// `UIBackgroundModes` `fetch`, nor when the manifest declares
    /// `BGTaskSchedulerPermittedIdentifiers` (iOS 13+, S14). Fetches call the delegate's
    /// `application(_:performFetchWithCompletionHandler:)`, which has 30 s to call its
    /// completion handler before the app is ended.
    public nonisolated func setMinimumBackgroundFetchInterval(_ minimumBackgroundFetchInterval: TimeInterval) {
        let interval: Duration?
        switch minimumBackgroundFetchInterval {
        case Self.backgroundFetchIntervalNever, .infinity: interval = nil
        case ...0: interval = .zero
        default: interval = .seconds(fromInterval: minimumBackgroundFetchInterval)
        }
        connection.setMinimumBackgroundFetchInterval(interval)
    }
}
