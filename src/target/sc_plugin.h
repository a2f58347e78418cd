/* sc_plugin: loading plugins (shardcheck/plugin.h) and running their
 * transforms as targets.
 *
 * Loading runs the plugin's registration in a sandboxed child
 * (src/util/sc_sandbox.h) under the run timeout and memory limit: a crash,
 * hang or exit() there is an error naming the plugin, never shardcheck's.
 * On backends that hold every rank in one process (sim), a case runs in a
 * sandboxed child (own process group, stdout to stderr, memory limit) with
 * one thread per rank, on buffers of a shared arena: a crash, exit, hang,
 * overrun of a buffer or a process left behind ends only the child and
 * becomes a runtime failure of the case ("rank 1 called exit(3)"), shrunk
 * like any other. On backends with one process per rank (mpi), the library
 * is loaded in process and run is called on the local rank. */
#ifndef SC_PLUGIN_H
#define SC_PLUGIN_H

#include "sc_target.h"

/* A library may register at most this many transforms; one more fails
 * its loading (a transform never goes unchecked in silence). */
#define SC_PLUGIN_MAX_TRANSFORMS 1024

struct sc_plugin_lib;

/* Limits on the plugin's children: seconds per registration and per case
 * (a target's plugin_timeout overrides), bytes of address space (0: none). */
struct sc_plugin_limits {
	double timeout;
	size_t memory;
};
void sc_plugin_set_limits(const struct sc_plugin_limits *l);

/* Runs path's sc_plugin_register in a child and keeps the transforms it
 * registered (names, contracts, descriptions). */
enum sc_status sc_plugin_load(const char *path, struct sc_plugin_lib **out, struct sc_err *e);
void sc_plugin_close(struct sc_plugin_lib *lib); /* NULL-safe */
int sc_plugin_count(const struct sc_plugin_lib *lib);
const struct sc_plugin_transform *sc_plugin_get(const struct sc_plugin_lib *lib, int i);
/* The transform called name: its name as registered, or as shown
 * (sc_plugin_name); NULL when none is. */
const struct sc_plugin_transform *sc_plugin_find(const struct sc_plugin_lib *lib, const char *name);
/* The name as shown in every output: bytes outside printable ASCII, and
 * backslashes, escaped C-style ("a\nb", "\x1b[31m"); a registered name
 * without them is shown as it is. Registration refuses two transforms
 * shown alike. */
const char *sc_plugin_name(const struct sc_plugin_transform *t);

/* A target for transform tr (contract parsed now; errors name the plugin
 * and the contract's line); baseline may be NULL. */
enum sc_status sc_target_plugin(struct sc_target *t, const char *libpath,
				const struct sc_plugin_transform *tr,
				const struct sc_plugin_transform *baseline, struct sc_err *e);

/* Runs the transform on the inputs in x->t (filled by sc_target_run) and
 * leaves the outputs there. */
enum sc_status sc_plugin_exec(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			      struct sc_err *e);

#endif
