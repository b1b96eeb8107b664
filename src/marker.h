/* marker.h - likwid marker regions (--likwid-marker): "prefill" and "run",
 * so `likwid-perfctr -m -g MEM` measures them. Outside likwid-perfctr
 * (no LIKWID_MODE/LIKWID_EVENTS in the environment) every call is a no-op. */
#ifndef CHT_MARKER_H
#define CHT_MARKER_H

#include <stdbool.h>
#include <stddef.h>

bool marker_built(void);
/* main thread, once: returns whether markers are live (else *note says why) */
bool marker_init(char *note, size_t len);
void marker_thread_init(void);
void marker_start(const char *region);
void marker_stop(const char *region);
void marker_close(void);

#endif
