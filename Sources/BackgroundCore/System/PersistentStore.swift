/// Where the system keeps what must survive a restart: pending requests, usage, app state.
///
/// The core only declares the contract; `BackgroundStore` implements it with SQLite, and tests
/// can use an in-memory double. Implementations write each batch atomically (one transaction):
/// a process killed at any point leaves either the whole batch or none of it.
public protocol PersistentStore: Sendable {
    /// Writes a batch of changes atomically.
    ///
    /// - Parameters:
    ///   - changes: The changes, in order.
    ///   - clock: Converts the changes' instants to wall-clock time.
    /// - Throws: The store's error if the batch could not be written; nothing was written then.
    func apply(_ changes: [StoreChange], clock: WallClock) throws

    /// Reads back every app's state.
    ///
    /// - Parameter clock: Converts stored wall-clock times to instants of the current timeline.
    /// - Throws: The store's error if it cannot be read; an unreadable store is never treated
    ///   as empty.
    func load(clock: WallClock) throws -> [PersistedApp]

    /// Makes the store's main file hold everything written so far, for a clean shutdown (an
    /// SQLite store checkpoints its write-ahead log). Stores without such a log do nothing.
    ///
    /// - Throws: The store's error; nothing written before is lost then.
    func checkpoint() throws
}

extension PersistentStore {
    /// Does nothing: the store keeps no log beside its data.
    public func checkpoint() throws {}
}

/// The link between a system's timeline and wall-clock time, for what outlives the timeline.
///
/// ```swift
/// let clock = WallClock(unixSecondsAtOrigin: 1_767_225_600)   // T+0 is 2026-01-01 00:00 UTC
/// clock.unixSeconds(of: .seconds(60))                          // 1_767_225_660
/// ```
public struct WallClock: Sendable, Hashable, Codable {
    /// The wall-clock time, in seconds since 1970, of the timeline's origin (T+0).
    public var unixSecondsAtOrigin: Double

    /// Creates a mapping.
    public init(unixSecondsAtOrigin: Double) {
        self.unixSecondsAtOrigin = unixSecondsAtOrigin
    }

    /// The wall-clock time of an instant, in seconds since 1970.
    public func unixSeconds(of instant: Instant) -> Double {
        unixSecondsAtOrigin + instant.seconds
    }

    /// The instant of a wall-clock time (before the origin for times before it).
    public func instant(unixSeconds: Double) -> Instant {
        Instant(offset: .seconds(fromInterval: unixSeconds - unixSecondsAtOrigin))
    }
}
