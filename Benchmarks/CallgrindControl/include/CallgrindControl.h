// Starts and stops callgrind's instrumentation from inside a benchmark, so that a run under
// `valgrind --tool=callgrind --instr-atstart=no` pays callgrind's full cost only for the part it
// measures (the rest runs at the speed of valgrind without instrumentation). Without valgrind's
// headers, or outside valgrind, these do nothing.
#ifndef CALLGRIND_CONTROL_H
#define CALLGRIND_CONTROL_H

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
static inline void callgrind_control_start(void) { CALLGRIND_START_INSTRUMENTATION; }
static inline void callgrind_control_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
#else
static inline void callgrind_control_start(void) {}
static inline void callgrind_control_stop(void) {}
#endif

#endif
