// Swift has no code that runs when a library loads; C has constructors. A binary that links
// BackgroundSimulatorTesting (a test target using the BackgroundSimulator product) links this
// file too, and its constructor calls BackgroundSimulatorTesting's installation, which hands
// the simulator a recorder that turns a fault no `onFault` handled into an issue of the running
// Swift Testing test, or a failure of the running XCTest test case (it also adds an XCTest
// observer, before XCTest starts its first test case). bgctl links the BackgroundSimulator target alone, so neither this file nor
// Swift Testing is in it.
#include "CSimulatorTestingLoad.h"

// Defined with @_cdecl in BackgroundSimulatorTesting (FaultRecorderInstallation.swift). Weak, so
// that this file alone still links (it never is: only BackgroundSimulatorTesting depends on it).
extern void background_simulator_testing_install(void) __attribute__((weak));

static int loaded = 0;

__attribute__((constructor)) static void background_simulator_testing_load(void) {
    if (background_simulator_testing_install) {
        background_simulator_testing_install();
        loaded = 1;
    }
}

int background_simulator_testing_loaded(void) { return loaded; }
