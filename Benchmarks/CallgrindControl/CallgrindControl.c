// The controls are static inline functions in the header; SwiftPM wants a source file.
#include "CallgrindControl.h"
