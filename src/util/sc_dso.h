/* sc_dso: the optional parts of shardcheck (the mpi, cuda and nccl
 * backends) are shared libraries loaded on first use, so that the binary
 * starts without Open MPI, CUDA or NCCL and runs the sim backend on a
 * machine that lacks them. A part, libshardcheck_NAME.so, is looked for
 * next to the running binary, one folder up (a test binary in
 * build/tests) and in ../lib (an install); the first load's outcome is
 * kept. */
#ifndef SC_DSO_H
#define SC_DSO_H

#include "sc_status.h"

/* The part's library (file: "libshardcheck_mpi.so"), loaded once with its
 * dependencies' symbols global (Open MPI loads plugins of its own that
 * need them); SC_E_UNAVAIL with the loader's reason when it cannot be. */
enum sc_status sc_dso_load(const char *file, void **handle, struct sc_err *e);
/* A function of a loaded part (NULL when absent), to be cast to its type. */
typedef void (*sc_dso_fn)(void);
sc_dso_fn sc_dso_sym(void *handle, const char *name);

#endif
