/*
 * run/loop_bytes.c - the byte-key timed loop (LOOP_BYTES, run_bytes_timed_loop): loop.c compiled
 * once more, in a translation unit of its own. In loop.c itself, one more instantiation of
 * timed_loop_for changed how the compiler allocated registers in the integer instantiations;
 * here it cannot, so those stay the code they were (the integer-key loop must not change).
 */
#define CHT_LOOP_BYTES_UNIT 1
#include "loop.c"
