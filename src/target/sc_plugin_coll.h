/* sc_plugin_coll: the collectives a plugin's ranks call (the ABI's struct
 * sc_plugin_collectives): ranks as coroutines of one child process
 * (src/util/sc_coro.h) meeting at barriers, where a waiting rank yields to
 * the others, or one rank per process through the backend; over the
 * world, or over the groups of a mesh's dims (a mesh contract's
 * call->group). */
#ifndef SC_PLUGIN_COLL_H
#define SC_PLUGIN_COLL_H

#include "sc_backend.h"
#include "shardcheck/plugin.h"

/* Every table of one run of a transform. */
struct sc_plugin_comms;

/* Tables for local ranks first..first+nlocal-1 of a world of `world`: as
 * coroutines when be is NULL (every rank here), else through be (one rank
 * here); with a mesh (mesh->n > 0, mesh order groups of every subset of
 * its dims) or none. */
enum sc_status sc_plugin_comms_new(struct sc_backend *be, int world, int first, int nlocal, const struct sc_mesh *mesh,
				   struct sc_plugin_comms **out, struct sc_err *e);
void sc_plugin_comms_free(struct sc_plugin_comms *c); /* NULL-safe; no rank runs */
/* Arrivals at barriers so far (every rank here): a round of the ranks that
 * leaves it unchanged while some still wait is a deadlock. */
unsigned long sc_plugin_comms_moves(const struct sc_plugin_comms *c);
/* Local rank r's table over the world. */
const struct sc_plugin_collectives *sc_plugin_comms_world(struct sc_plugin_comms *c, int r);
/* Local rank r's table over its group of the mesh dims dims[0..n) (in mesh
 * order, each once); NULL for any other request or without a mesh. */
const struct sc_plugin_collectives *sc_plugin_comms_group(struct sc_plugin_comms *c, int r, const int *dims, int n);
/* Every rank here: the buffers are in dm's device memory (rank w's on
 * w's device); the collectives copy and reduce there, each ordered after
 * what the ranks queued before it and done before it returns. */
struct sc_devmem;
void sc_plugin_comms_devmem(struct sc_plugin_comms *c, struct sc_devmem *dm);

#endif
