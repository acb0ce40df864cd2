// The core's types (AppID, SystemPolicy, TerminationReport, Instant, …) are part of this
// module's API: configuring a system or reading a report needs them, with one import.
@_exported public import BackgroundCore
