// A test that drives the simulator also writes app code against BackgroundExecution: one import
// brings both.
@_exported public import BackgroundExecution
