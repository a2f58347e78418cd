/* sc_plugin_dev: a device-memory call of a plugin's transform, in the
 * child that runs its ranks.
 *
 * The case's buffers stay on the host (shared with the parent, which fills
 * and checks them); for a transform that accepts device memory on a
 * backend that has it, the child copies every rank's input into device
 * memory of its own, with guard zones of SC_GUARD_BYTES on both sides of
 * every buffer and the output's bytes all set, hands the transform those
 * pointers (call->memory = SC_PLUGIN_DEVICE), and after the ranks returned
 * synchronises, looks at the guards and copies input and output back: the
 * parent then checks them as it checks a host call's. */
#ifndef SC_PLUGIN_DEV_H
#define SC_PLUGIN_DEV_H

#include <stddef.h>

#include "sc_backend.h"
#include "sc_devmem.h"
#include "shardcheck/plugin.h"

/* Set to 1 in the environment of a run under compute-sanitizer (gate
 * --sanitize): a plugin's CUDA buffers are then allocated exactly, with
 * no guard zones and none reused, so that the tool's memcheck sees an
 * access past one (outside every allocation). */
#define SC_PLUGIN_DEV_SANITIZED_ENV "SC_SANITIZE_INSIDE"

/* Where a job's buffers live in the child. */
enum sc_plugin_dev_kind { SC_PLUGIN_DEV_NONE = 0, SC_PLUGIN_DEV_EMU = 1, SC_PLUGIN_DEV_CUDA = 2 };

/* The device memory a transform of that memory set gets on backend be:
 * NONE (host buffers: a host-only transform, or a backend without device
 * memory), EMU (emu) or CUDA (cuda: the child makes a CUDA context of its
 * own). -1 when it cannot run there, with why: a device-only transform on
 * a host backend or on nccl, unknown bits in the set, or device memory on
 * cuda once this process has made CUDA calls (a child forked from it
 * could not). */
int sc_plugin_dev_kind(const struct sc_backend *be, unsigned memory, char *why, size_t n);
/* On a backend with device memory, why a transform gets host buffers
 * there (" (transforms that do not accept device memory)"); NULL on a host
 * backend. */
const char *sc_plugin_dev_staged(const struct sc_backend *be);

/* In the child: its device memory of that kind, opened on first use; NULL
 * with why. */
struct sc_devmem *sc_plugin_dev_open(enum sc_plugin_dev_kind kind, char *why, size_t n);
/* Copies rank r's input (call, host pointers) into a device buffer and
 * points call at it and at an output buffer with every bit set; native
 * gets the rank's stream. 0, or 1 with why (an allocation or a copy
 * failed: what was staged is released). */
int sc_plugin_dev_stage(struct sc_devmem *dm, struct sc_plugin_call *call, struct sc_plugin_native *native, int r,
			char *why, size_t n);
/* After the ranks returned: every queued operation done; 0, or 1 with the
 * device error in why. */
int sc_plugin_dev_sync(struct sc_devmem *dm, char *why, size_t n);
/* Rank r's guard zones looked at (a write into one: 1, the first changed
 * byte named in why), then its input and output copied back to host's
 * buffers; 0 when done. */
int sc_plugin_dev_return(struct sc_devmem *dm, const struct sc_plugin_call *call, const struct sc_plugin_call *host,
			 int r, char *why, size_t n);
/* Frees the call's device buffers (and forgets a pending error). */
void sc_plugin_dev_release(struct sc_devmem *dm);

#endif
