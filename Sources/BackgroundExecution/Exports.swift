// The core's types (AppID, SystemPolicy, TerminationReport, Instant, …) are part of this
// module's API: configuring a system or reading a report needs them, with one import.
@_exported public import BackgroundCore
// A termination report's published JSON form (TerminationReportDocument) lives beside the core's
// reports, in BackgroundReports, which process control and the daemon use without this module.
@_exported public import BackgroundReports
// UIKit re-exports Foundation, and iOS code relies on it (DispatchQueue, Date, sleep): so do we,
// so that replacing `import UIKit` with `import BackgroundExecution` is the only change needed.
@_exported public import Foundation
// FoundationNetworking holds URLRequest, HTTPURLResponse and URLSession on Linux. This module
// declares its own URLSession family (API/URLSession), which shadows FoundationNetworking's for
// files that import only this module; see URLSession's documentation for the one ambiguity.
@_exported public import FoundationNetworking
