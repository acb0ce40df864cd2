// Runs BackgroundSimulatorTesting's installation when the binary that links it loads (see
// load.c). Nothing here is for callers: the header exists because SwiftPM wants one.
#ifndef C_SIMULATOR_TESTING_LOAD_H
#define C_SIMULATOR_TESTING_LOAD_H

/// Whether the load-time installation ran (1) in this process; for the tests.
int background_simulator_testing_loaded(void);

#endif
