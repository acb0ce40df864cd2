// What moved out of this module to modules of their own below it, re-exported so that code that
// named it with `import BackgroundExecution` compiles unchanged: the control channel's documents
// (`WhyDocument`, `StatusDocument`, `DebugCommand`, …), the core's types, the manifest reader
// (`AppManifest(contentsOf:)`, `ManifestError`), where files are (`StateDirectories`,
// `DaemonPaths`) and a termination report's published form (`TerminationReportDocument`).
@_exported public import BackgroundControl
// The core's types (AppID, SystemPolicy, TerminationReport, Instant, …) are part of this
// module's API: configuring a system or reading a report needs them, with one import.
@_exported public import BackgroundCore
@_exported public import BackgroundManifest
@_exported public import BackgroundPaths
@_exported public import BackgroundReports
// UIKit re-exports Foundation, and iOS code relies on it (DispatchQueue, Date, sleep): so do we,
// so that replacing `import UIKit` with `import BackgroundExecution` is the only change needed.
@_exported public import Foundation
// FoundationNetworking holds URLRequest, HTTPURLResponse and URLSession on Linux. This module
// declares its own URLSession family (API/URLSession), which shadows FoundationNetworking's for
// files that import only this module; see URLSession's documentation for the one ambiguity.
@_exported public import FoundationNetworking
