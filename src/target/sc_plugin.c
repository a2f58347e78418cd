/* sc_plugin: plugin loading, contracts, and the calls of a case.
 *
 * No plugin code runs in shardcheck's own process on single-process
 * backends: the registration runs in a sandboxed child (which hands back
 * the transforms' names and contracts), and the cases in the library's
 * host (sc_plugin_host.h), whose children load the library again. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "sc_plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>


#include "shardcheck/plugin.h"
#include "sc_fs.h"
#include "sc_mix.h"
#include "sc_plugin_coll.h"
#include "sc_plugin_dev.h"
#include "sc_plugin_host.h"
#include "sc_sandbox.h"

/* The ABI's dtype and op values are shardcheck's own. */
_Static_assert((int)SC_PLUGIN_I32 == (int)SC_I32 && (int)SC_PLUGIN_F8E5M2 == (int)SC_F8E5M2 &&
		       (int)SC_PLUGIN_BF16 == (int)SC_BF16 && (int)SC_PLUGIN_U64 == (int)SC_U64,
	       "plugin dtype values");
_Static_assert((int)SC_PLUGIN_SUM == (int)SC_SUM && (int)SC_PLUGIN_PROD == (int)SC_PROD, "plugin ops");
/* Members are only appended: a plugin built before all_to_allv finds the
 * first four collectives and impl where they were. */
_Static_assert(offsetof(struct sc_plugin_collectives, impl) == sizeof(size_t) + 4 * sizeof(void (*)(void)) &&
		       offsetof(struct sc_plugin_collectives, all_to_allv) > offsetof(struct sc_plugin_collectives, impl),
	       "sc_plugin_collectives layout");

/* A transform as registered, and the library it came from (the pointers
 * handed out are &entry.t, so the library is found from the transform). */
struct entry {
	struct sc_plugin_transform t;
	struct sc_plugin_lib *lib;
	char *shown; /* the name as printed (sc_plugin_name) */
};

struct sc_plugin_lib {
	void *handle;   /* dlopen'd in this process (sc_plugin_bind), else NULL */
	char path[512]; /* as given */
	char load[600]; /* as dlopen'd */
	int n;
	struct entry e[SC_PLUGIN_MAX_TRANSFORMS];
	char *strings[4 * SC_PLUGIN_MAX_TRANSFORMS];
	int nstrings;
	int bad;      /* add() calls refused (each one fails the loading) */
	char why[512]; /* why the first was */
	struct sc_plugin_host *host; /* runs its transforms in children (made on first use) */
};

static struct sc_plugin_limits limits = {10, 0};

void sc_plugin_set_limits(const struct sc_plugin_limits *l) { limits = *l; }

static char *keep(struct sc_plugin_lib *lib, const char *s)
{
	if (!s || lib->nstrings >= 4 * SC_PLUGIN_MAX_TRANSFORMS)
		return NULL;
	return lib->strings[lib->nstrings++] = strdup(s);
}

/* name with the bytes outside printable ASCII, and backslashes, escaped;
 * NULL when it needs no escape or memory is short. */
static char *escaped(const char *name)
{
	size_t n = 0, raw = 1;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		const int plain = *p >= 0x20 && *p < 0x7f && *p != '\\';
		n += plain ? 1 : 4;
		raw &= plain;
	}
	char *out = raw ? NULL : malloc(n + 1);
	if (!out)
		return NULL;
	char *o = out;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		static const char named[][2] = {{'\n', 'n'}, {'\t', 't'}, {'\r', 'r'}, {'\\', '\\'}};
		size_t k = 0;
		while (k < sizeof named / sizeof named[0] && (unsigned char)named[k][0] != *p)
			k++;
		if (k < sizeof named / sizeof named[0])
			o += sprintf(o, "\\%c", named[k][1]);
		else if (*p >= 0x20 && *p < 0x7f)
			*o++ = (char)*p;
		else
			o += sprintf(o, "\\x%02x", *p);
	}
	*o = '\0';
	return out;
}

/* A refused add(): the loading fails, naming the first refusal and
 * counting the rest. */
static int refuse(struct sc_plugin_lib *lib, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(struct sc_plugin_lib *lib, int rc, const char *fmt, ...)
{
	if (lib->bad++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(lib->why, sizeof lib->why, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int reg_add(struct sc_plugin_registry *reg, const struct sc_plugin_transform *t)
{
	struct sc_plugin_lib *lib = reg->impl;
	const size_t need = offsetof(struct sc_plugin_transform, run) + sizeof t->run;
	if (!t || t->size < need || !t->name || !t->contract || !t->run)
		return refuse(lib, -1, "a transform lacks name, contract or run (size %zu)", t ? t->size : (size_t)0);
	char *shown = escaped(t->name);
	const char *as = shown ? shown : t->name;
	int rc = 0;
	if (t->abi_version > SC_PLUGIN_ABI_VERSION)
		rc = refuse(lib, -2, "transform '%.64s' needs plugin ABI %u; this shardcheck has %u", as, t->abi_version,
			    SC_PLUGIN_ABI_VERSION);
	else if (!t->name[0])
		rc = refuse(lib, -1, "a transform has an empty name");
	else if (SC_PLUGIN_HAS(t, struct sc_plugin_transform, memory) &&
		 (t->memory & ~(SC_PLUGIN_MEMORY_HOST | SC_PLUGIN_MEMORY_DEVICE)))
		rc = refuse(lib, -5, "transform '%.64s' declares memory 0x%x: the known bits are host (0x%x) and device (0x%x)",
			    as, t->memory, SC_PLUGIN_MEMORY_HOST, SC_PLUGIN_MEMORY_DEVICE);
	else if (sc_plugin_find(lib, as) || (shown && sc_plugin_find(lib, t->name)))
		rc = refuse(lib, -4, "transform '%.64s' is registered twice (names must be unique)", as);
	else if (lib->n >= SC_PLUGIN_MAX_TRANSFORMS)
		rc = refuse(lib, -3, "transform '%.64s' is the %dth: a plugin registers at most %d", as, lib->n + 1,
			    SC_PLUGIN_MAX_TRANSFORMS);
	if (rc) {
		free(shown);
		return rc;
	}
	struct sc_plugin_transform *d = &lib->e[lib->n].t;
	/* fields past the plugin's size keep their zero defaults */
	memset(d, 0, sizeof *d);
	memcpy(d, t, t->size < sizeof *d ? t->size : sizeof *d);
	d->size = sizeof *d;
	d->name = keep(lib, t->name);
	d->contract = keep(lib, t->contract);
	if (d->description)
		d->description = keep(lib, d->description);
	lib->e[lib->n].shown = shown ? keep(lib, shown) : (char *)d->name;
	free(shown);
	lib->e[lib->n].lib = lib;
	lib->n++;
	return 0;
}

/* dlopen and sc_plugin_register, in this process. 0, or 1 with lib->why. */
static int do_register(struct sc_plugin_lib *lib)
{
	lib->handle = dlopen(lib->load, RTLD_NOW | RTLD_LOCAL);
	if (!lib->handle) {
		snprintf(lib->why, sizeof lib->why, "cannot load the plugin: %s", dlerror());
		return 1;
	}
	int (*reg)(struct sc_plugin_registry *);
	*(void **)&reg = dlsym(lib->handle, "sc_plugin_register");
	if (!reg) {
		snprintf(lib->why, sizeof lib->why, "not a shardcheck plugin (no sc_plugin_register)");
		return 1;
	}
	struct sc_plugin_registry r = {sizeof r, SC_PLUGIN_ABI_VERSION, reg_add, lib};
	const int rc = reg(&r);
	if (lib->bad > 1) { /* every refusal counts; the first is named */
		const size_t l = strlen(lib->why);
		snprintf(lib->why + l, sizeof lib->why - l, " (and %d more add() call%s refused)", lib->bad - 1,
			 lib->bad == 2 ? "" : "s");
	}
	if (rc != 0 || lib->bad || lib->n == 0) {
		if (!lib->bad)
			snprintf(lib->why, sizeof lib->why, "%s",
				 rc ? "sc_plugin_register failed" : "the plugin registers no transform");
		return 1;
	}
	return 0;
}

/* What a registration in a child hands back: the transforms' strings. */
#define PROBE_BYTES ((size_t)1 << 20)
struct probe_out {
	int n;
	char why[512];
	struct {
		unsigned abi, memory;
		size_t name, contract, description; /* offsets into text; 0: none */
	} t[SC_PLUGIN_MAX_TRANSFORMS];
	size_t used;
	char text[];
};

struct probe {
	const char *load;
	struct probe_out *out;
};

static size_t put_text(struct probe_out *o, const char *s)
{
	const size_t room = PROBE_BYTES - sizeof *o, l = s ? strlen(s) + 1 : 0;
	if (!s || o->used + l > room)
		return 0;
	memcpy(o->text + o->used, s, l);
	o->used += l;
	return o->used - l;
}

static int probe_child(void *arg)
{
	struct probe *p = arg;
	struct sc_plugin_lib *lib = calloc(1, sizeof *lib);
	if (!lib)
		return 2;
	snprintf(lib->load, sizeof lib->load, "%s", p->load);
	struct probe_out *o = p->out;
	o->used = 1; /* offset 0 means none */
	if (do_register(lib)) {
		snprintf(o->why, sizeof o->why, "%s", lib->why);
		return 1;
	}
	for (int i = 0; i < lib->n; i++) {
		const struct sc_plugin_transform *t = &lib->e[i].t;
		o->t[i].abi = t->abi_version;
		o->t[i].memory = t->memory;
		o->t[i].name = put_text(o, t->name);
		o->t[i].contract = put_text(o, t->contract);
		o->t[i].description = put_text(o, t->description);
		if (!o->t[i].name || !o->t[i].contract) {
			snprintf(o->why, sizeof o->why, "the transforms' names and contracts exceed %zu bytes", PROBE_BYTES);
			return 1;
		}
	}
	o->n = lib->n;
	return 0;
}

/* The library's transforms, from a registration run in a sandbox: a
 * crash, hang or exit there is the plugin's error, not shardcheck's. */
static enum sc_status probe(struct sc_plugin_lib *lib, struct sc_err *e)
{
	struct probe_out *o = mmap(NULL, PROBE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (o == MAP_FAILED)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	struct probe p = {lib->load, o};
	const struct sc_sandbox_opts so = {limits.timeout > 0 ? limits.timeout : 10, limits.memory, 0};
	struct sc_sandbox_result r;
	enum sc_status st = sc_sandbox_run(probe_child, &p, &so, &r, e);
	char how[300] = "";
	if (st == SC_OK)
		sc_sandbox_describe(&r, NULL, how, sizeof how);
	if (st != SC_OK) {
		/* e says why the child could not start */
	} else if (r.end == SC_SANDBOX_RETURNED && r.code == 1)
		st = SC_ERR(e, SC_E_USAGE, "%s: %.511s", lib->path, o->why);
	else if (r.end != SC_SANDBOX_RETURNED || r.code != 0)
		st = SC_ERR(e, SC_E_USAGE, "%s: the plugin's registration (sc_plugin_register) %s", lib->path, how);
	else if (r.leftovers)
		st = SC_ERR(e, SC_E_USAGE, "%s: the plugin's registration left processes running (killed)", lib->path);
	for (int i = 0; st == SC_OK && i < o->n; i++) {
		struct sc_plugin_transform *d = &lib->e[i].t;
		memset(d, 0, sizeof *d);
		d->size = sizeof *d;
		d->abi_version = o->t[i].abi;
		d->memory = o->t[i].memory;
		d->name = keep(lib, o->text + o->t[i].name);
		d->contract = keep(lib, o->text + o->t[i].contract);
		if (o->t[i].description)
			d->description = keep(lib, o->text + o->t[i].description);
		char *shown = d->name ? escaped(d->name) : NULL;
		lib->e[i].shown = shown ? keep(lib, shown) : (char *)d->name;
		free(shown);
		lib->e[i].lib = lib;
		lib->n = i + 1;
	}
	munmap(o, PROBE_BYTES);
	return st;
}

enum sc_status sc_plugin_load(const char *path, struct sc_plugin_lib **out, struct sc_err *e)
{
	struct sc_plugin_lib *lib = calloc(1, sizeof *lib);
	if (!lib)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	snprintf(lib->path, sizeof lib->path, "%s", path);
	snprintf(lib->load, sizeof lib->load, "%s%s", strchr(path, '/') ? "" : "./", path);
	struct stat sb; /* a FIFO or a device would block dlopen: only regular files are loaded */
	enum sc_status st = stat(lib->load, &sb) != 0 ? SC_ERR(e, SC_E_USAGE, "%s: cannot load the plugin: %s", path, strerror(errno))
			    : !S_ISREG(sb.st_mode) ? SC_ERR(e, SC_E_USAGE, "%s: not a regular file (%s); refusing to load it", path,
							     sc_fs_kind(sb.st_mode))
						   : probe(lib, e);
	if (st != SC_OK) {
		sc_plugin_close(lib);
		return st;
	}
	SC_LOG(PLUGIN, "loaded %s: %d transform%s (registration run in a child)", path, lib->n, lib->n == 1 ? "" : "s");
	*out = lib;
	return SC_OK;
}

/* Loads the library into this process, for running in process (one rank
 * per process): the transforms must be those the probe saw. */
static enum sc_status bind_here(struct sc_plugin_lib *lib, struct sc_err *e)
{
	if (lib->handle)
		return SC_OK;
	struct sc_plugin_lib *here = calloc(1, sizeof *here);
	if (!here)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	snprintf(here->load, sizeof here->load, "%s", lib->load);
	enum sc_status st = SC_OK;
	if (do_register(here))
		st = SC_ERR(e, SC_E_RUNTIME, "%s: %s", lib->path, here->why);
	for (int i = 0; st == SC_OK && i < lib->n; i++) {
		const struct sc_plugin_transform *t = i < here->n ? &here->e[i].t : NULL;
		if (!t || strcmp(t->name, lib->e[i].t.name) != 0 || strcmp(t->contract, lib->e[i].t.contract) != 0) {
			st = SC_ERR(e, SC_E_RUNTIME, "%s: the plugin registers different transforms on a second load",
				    lib->path);
			break;
		}
		lib->e[i].t.run = t->run;
		lib->e[i].t.user = t->user;
	}
	if (st == SC_OK) {
		lib->handle = here->handle; /* the strings stay with here's copies: freed below */
		here->handle = NULL;
	}
	sc_plugin_close(here);
	return st;
}

void sc_plugin_close(struct sc_plugin_lib *lib)
{
	if (!lib)
		return;
	for (int i = 0; i < lib->nstrings; i++)
		free(lib->strings[i]);
	sc_plugin_host_free(lib->host);
	if (lib->handle)
		dlclose(lib->handle);
	free(lib);
}

int sc_plugin_count(const struct sc_plugin_lib *lib) { return lib->n; }
const struct sc_plugin_transform *sc_plugin_get(const struct sc_plugin_lib *lib, int i) { return &lib->e[i].t; }
const char *sc_plugin_name(const struct sc_plugin_transform *t)
{
	const char *shown = ((const struct entry *)(const void *)t)->shown;
	return shown ? shown : t->name;
}

const struct sc_plugin_transform *sc_plugin_find(const struct sc_plugin_lib *lib, const char *name)
{
	for (int i = 0; i < lib->n; i++)
		if (strcmp(lib->e[i].t.name, name) == 0 || (lib->e[i].shown && strcmp(lib->e[i].shown, name) == 0))
			return &lib->e[i].t;
	return NULL;
}

static struct sc_plugin_lib *lib_of(const struct sc_plugin_transform *t)
{
	return ((const struct entry *)(const void *)t)->lib;
}

static enum sc_status plugin_specs(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
				   int *n, struct sc_err *e)
{
	(void)c;
	(void)e;
	out[0] = t->spec;
	*n = 1;
	return SC_OK;
}

static int plugin_moves_data_only(const struct sc_target *t)
{
	return !t->spec->has_reduction && !t->spec->compute;
}

static void plugin_free(struct sc_target *t)
{
	free(t->spec);
	sc_plugin_close(t->own_lib);
	sc_plugin_close(t->own_baseline);
}

static enum sc_status plugin_batch_start(struct sc_target *t, int *failed, struct sc_err *e);
static enum sc_status plugin_batch_wait(struct sc_target *t, int k, int *failed, struct sc_err *e);
static void plugin_batch_settle(struct sc_target *t);

static const struct sc_target_ops plugin_ops = {
	.kind = "plugin",
	.flags = SC_TARGET_HOST_ONLY | SC_TARGET_TYPED | SC_TARGET_WARM | SC_TARGET_BATCH,
	.specs = plugin_specs,
	.run = sc_plugin_exec,
	.batch_start = plugin_batch_start,
	.batch_wait = plugin_batch_wait,
	.batch_settle = plugin_batch_settle,
	.moves_data_only = plugin_moves_data_only,
	.free = plugin_free,
};

enum sc_status sc_target_plugin(struct sc_target *t, const char *libpath,
				const struct sc_plugin_transform *tr,
				const struct sc_plugin_transform *baseline, struct sc_err *e)
{
	memset(t, 0, sizeof *t);
	struct sc_spec *s = malloc(sizeof *s);
	if (!s)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	char where[700];
	snprintf(where, sizeof where, "%s:%s", libpath, sc_plugin_name(tr));
	enum sc_status st = sc_spec_parse(tr->contract, where, s, e);
	if (st == SC_OK && s->nsteps > 0)
		st = SC_ERR(e, SC_E_SPEC, "%s:%d:1: a contract declares (dims, input, output, ...); it has no steps",
			    where, s->steps[0].line);
	if (st != SC_OK) {
		free(s);
		return st;
	}
	t->ops = &plugin_ops;
	t->spec = s;
	t->expect = -1;
	t->plugin = tr;
	t->baseline = baseline;
	snprintf(t->name, sizeof t->name, "%.500s", where);
	snprintf(t->plugin_path, sizeof t->plugin_path, "%s", libpath);
	return SC_OK;
}

/* ---- running ---- */

/* In a plugin's child: the library loaded in this process once, and the
 * transform as the parent's registration saw it. */
static const struct sc_plugin_transform *resolve_here(const char *load, const struct sc_plugin_transform *want,
						      char *why, size_t n)
{
	static struct sc_plugin_lib *here;
	if (!here) {
		struct sc_plugin_lib *lib = calloc(1, sizeof *lib);
		if (!lib) {
			snprintf(why, n, "out of memory");
			return NULL;
		}
		snprintf(lib->load, sizeof lib->load, "%s", load);
		if (do_register(lib)) {
			snprintf(why, n, "%s", lib->why);
			sc_plugin_close(lib);
			return NULL;
		}
		here = lib;
	}
	const struct sc_plugin_transform *tr = sc_plugin_find(here, want->name);
	if (!tr || strcmp(tr->contract, want->contract) != 0) {
		snprintf(why, n, "transform '%.64s' is registered differently on a second load", want->name);
		return NULL;
	}
	return tr;
}

/* Each rank's output, shaped by the contract, every bit set. */
static enum sc_status outputs(const struct sc_spec *s, const struct sc_case *c, struct sc_exec *x, unsigned es,
			      struct sc_tensor *out, struct sc_err *e)
{
	for (int r = 0; r < x->nlocal; r++) {
		int64_t shape[SC_MAX_DIMS];
		int nd;
		if (s->out.kind == SC_OPAQUE) {
			nd = s->out.nshape;
			for (int d = 0; d < nd; d++) {
				struct sc_err ee;
				if (sc_expr_eval(s, s->out.shape_expr[d], c->sizes, c->world, &shape[d], &ee) != SC_OK)
					return SC_ERR(e, SC_E_RUNTIME, "output shape: %s", ee.msg);
				if (shape[d] < 0)
					return SC_ERR(e, SC_E_RUNTIME, "output shape: dim %d is negative", d);
			}
		} else {
			struct sc_map m;
			struct sc_mesh lcm;
			const struct sc_layout_ctx lc = sc_layout_ctx_case(s, &c->counts, c->sizes, c->world, &lcm);
			sc_layout_map_in(&s->out, &lc, c->sizes, c->ndims, c->world, x->first + r, &m);
			nd = m.lndim;
			memcpy(shape, m.lshape, sizeof(int64_t) * (size_t)nd);
		}
		sc_arena_on(x->arena, x->first + r);
		/* all bits set, as purity's buffers: an element the plugin does
		 * not write can never hold an earlier run's (right) value */
		const int poison = x->arena->poison;
		x->arena->poison = 1;
		const enum sc_status st = sc_tensor_empty(x->arena, shape, nd, es, &out[r], e);
		x->arena->poison = poison;
		SC_CHECK(st);
	}
	return SC_OK;
}

static void set_tensor(struct sc_plugin_tensor *pt, const struct sc_tensor *t)
{
	pt->size = sizeof *pt;
	pt->ndim = t->ndim;
	for (int d = 0; d < t->ndim; d++)
		pt->shape[d] = t->shape[d];
	pt->data = t->buf->data + (size_t)t->offset * t->buf->esize;
	pt->elem_size = t->buf->esize;
}

/* Rank `rank`'s call (the pointers that differ per process are set where
 * it runs). */
static void set_call(struct sc_plugin_call *call, const struct sc_case *c, int prov, int rank,
		     const struct sc_tensor *in, const struct sc_tensor *out, const struct sc_mesh *mesh)
{
	memset(call, 0, sizeof *call);
	call->size = sizeof *call;
	call->abi_version = SC_PLUGIN_ABI_VERSION;
	call->rank = rank;
	call->world = c->world;
	call->dtype = prov ? SC_PLUGIN_U64 : (enum sc_plugin_dtype)c->dtype;
	call->memory = SC_PLUGIN_HOST;
	set_tensor(&call->input, in);
	set_tensor(&call->output, out);
	call->mesh_ndims = mesh->n;
	for (int m = 0; m < mesh->n; m++) {
		call->mesh_size[m] = mesh->size[m];
		call->mesh_coord[m] = sc_mesh_coord(mesh, rank, m);
	}
}

/* Every rank of variants c[0..n) of one case in a child of the library's
 * host (one call of its worker for all of them): in[k * world + r] and
 * out[k * world + r] are variant k's rank r's buffers. */
static enum sc_status run_hosted(struct sc_target *t, const struct sc_plugin_transform *tr, const struct sc_case *c,
				 const int *prov, int n, struct sc_exec *x, const struct sc_mesh *mesh, const struct sc_tensor *in,
				 const struct sc_tensor *out, double timeout, int start_only, int *failed, struct sc_err *e)
{
	*failed = 0;
	if (!x->arena->shared)
		return SC_ERR(e, SC_E_INTERNAL, "a plugin's ranks in one process need a shared arena");
	struct sc_plugin_lib *lib = lib_of(tr);
	if (!lib->host)
		SC_CHECK(sc_plugin_host_new(lib->load, resolve_here, &lib->host, e));
	const int world = c[0].world;
	char why[300];
	const int device = sc_plugin_dev_kind(x->be, tr->memory, why, sizeof why);
	if (device < 0)
		return SC_ERR(e, SC_E_USAGE, "transform '%s' cannot run on %s: %s", tr->name, x->be->ops->name, why);
	for (int k = 0; k < n; k++) {
		struct sc_plugin_job *j = sc_plugin_host_job(lib->host, k);
		if (!j)
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		j->tr = tr;
		j->world = world;
		j->device = device;
		j->mesh = *mesh;
		for (int m = 0; m < mesh->n; m++)
			snprintf(j->mesh_name[m], sizeof j->mesh_name[m], "%.63s", t->spec->mesh_dim[m]);
		const size_t at = (size_t)k * (size_t)world;
		for (int r = 0; r < world; r++)
			set_call(&j->call[r], &c[k], prov[k], x->first + r, &in[at + (size_t)r], &out[at + (size_t)r], mesh);
	}
	/* what, beyond the shapes, makes this call the same call: the values
	 * (seed, counts), provenance, and poisoned outputs (purity) */
	uint64_t key = sc_mix64(c[0].seed) ^ (uint64_t)prov[0] ^ ((uint64_t)x->arena->poison << 1);
	if (c[0].counts.P)
		for (int k = 0; k < SC_MAX_COUNTS; k++)
			for (int i = 0; i < SC_COUNTS_MAX_LEN; i++)
				key = sc_mix64(key ^ (uint64_t)(uint32_t)c[0].counts.v[k][i]);
	/* CUDA reserves more address space than any --plugin-memory limit
	 * leaves, and its driver reads /proc by the pid a pid namespace
	 * changes: a process with a CUDA context runs without either */
	const size_t memory = device == SC_PLUGIN_DEV_CUDA ? 0 : limits.memory;
	t->costly_fresh = device == SC_PLUGIN_DEV_CUDA;
	const struct sc_plugin_host_run_opts o = {t->fresh, timeout, memory, key, t->restart,
						  device == SC_PLUGIN_DEV_CUDA};
	t->restart = 0;
	if (start_only)
		return sc_plugin_host_start(lib->host, &o, n, in, out, e);
	return sc_plugin_host_run(lib->host, &o, n, in, out, failed, e);
}

/* The local rank in this process (one rank per process: mpi). */
static enum sc_status run_here(const struct sc_target *t, const struct sc_plugin_transform *tr, const struct sc_case *c, struct sc_exec *x,
			       const struct sc_mesh *mesh, const struct sc_tensor *out, struct sc_err *e)
{
	char why[300];
	if (sc_plugin_dev_kind(x->be, tr->memory, why, sizeof why) < 0)
		return SC_ERR(e, SC_E_USAGE, "transform '%s' cannot run on %s: %s", tr->name, x->be->ops->name, why);
	SC_CHECK(bind_here(lib_of(tr), e));
	struct sc_plugin_comms *comms = NULL;
	SC_CHECK(sc_plugin_comms_new(x->be, c->world, x->first, 1, mesh, &comms, e));
	struct sc_plugin_native native = {sizeof native, NULL, NULL, NULL};
	struct sc_plugin_call call;
	set_call(&call, c, x->prov, x->first, &x->t[0], &out[0], mesh);
	call.native = &native;
	for (int m = 0; m < mesh->n; m++)
		call.mesh_name[m] = t->spec->mesh_dim[m];
	const int rc = sc_plugin_host_run_local(tr, &call, comms, 0);
	sc_plugin_comms_free(comms);
	if (rc != 0)
		return SC_ERR(e, SC_E_RUNTIME, "rank %d: the transform returned %d", x->first, rc);
	return SC_OK;
}

_Static_assert(SC_TARGET_BATCH_MAX <= SC_PLUGIN_HOST_BATCH, "a batch fits the host's block");

static double plugin_timeout(const struct sc_target *t)
{
	return t->plugin_timeout > 0 ? t->plugin_timeout : limits.timeout > 0 ? limits.timeout : 10;
}

enum sc_status sc_plugin_exec(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			      struct sc_err *e)
{
	const struct sc_plugin_transform *tr = t->use_baseline ? t->baseline : t->plugin;
	const unsigned es = x->prov ? 8u : (unsigned)sc_dtype_size(c->dtype);
	struct sc_tensor out[SC_MAX_WORLD];
	SC_CHECK(outputs(t->spec, c, x, es, out, e));
	struct sc_mesh mesh = {0, {0}};
	if (t->spec->nmesh)
		mesh = sc_spec_mesh(t->spec, c->sizes, c->world);
	enum sc_status rs = SC_OK;
	int failed;
	if (x->nlocal == c->world && x->nlocal > 0)
		rs = run_hosted(t, tr, c, &x->prov, 1, x, &mesh, x->t, out, plugin_timeout(t), 0, &failed, e);
	else if (x->nlocal == 1)
		rs = run_here(t, tr, c, x, &mesh, out, e);
	if (rs != SC_OK)
		return rs;
	for (int r = 0; r < x->nlocal; r++)
		x->t[r] = out[r];
	return SC_OK;
}

static const struct sc_plugin_transform *running(const struct sc_target *t)
{
	return t->use_baseline ? t->baseline : t->plugin;
}

/* Variants of one case in one call of the library's worker (where every
 * rank is here and the worker is in use: not while a failure is
 * confirmed in fresh children), left running: plugin_batch_wait answers
 * for each as it ends. Elsewhere one after another, at once. */
static enum sc_status plugin_batch_start(struct sc_target *t, int *failed, struct sc_err *e)
{
	struct sc_target_batch *b = &t->batch;
	const struct sc_case *c = b->c;
	struct sc_exec *x = b->x;
	const int n = b->n, world = c[0].world;
	*failed = 0;
	if (n > SC_PLUGIN_HOST_BATCH || t->fresh || x->nlocal != world || world < 1) {
		b->hook_here = 0; /* sc_target_run runs the hook on each */
		return sc_target_run_each(t, c, b->prov, x, b->io, n, failed, e);
	}
	struct sc_plugin_lib *lib = lib_of(running(t));
	sc_plugin_host_settle(lib->host); /* the last call's buffers are about to be reused */
	struct sc_tensor *in = realloc(b->mem, sizeof *in * 2 * (size_t)n * (size_t)world);
	if (!in)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	b->mem = in;
	struct sc_tensor *out = in + (size_t)n * (size_t)world;
	for (int k = 0; k < n; k++) {
		if (c[k].world != world)
			return SC_ERR(e, SC_E_INTERNAL, "a batch of cases of worlds %d and %d", world, c[k].world);
		const unsigned es = b->prov[k] ? 8u : (unsigned)sc_dtype_size(c[k].dtype);
		memcpy(in + (size_t)k * (size_t)world, b->io[k], sizeof *in * (size_t)world);
		SC_CHECK(outputs(t->spec, &c[k], x, es, out + (size_t)k * (size_t)world, e));
	}
	struct sc_mesh mesh = {0, {0}};
	if (t->spec->nmesh)
		mesh = sc_spec_mesh(t->spec, c[0].sizes, world);
	SC_CHECK(run_hosted(t, running(t), c, b->prov, n, x, &mesh, in, out, plugin_timeout(t), 1, failed, e));
	b->async = 1;
	b->copied = 0;
	return SC_OK;
}

static enum sc_status plugin_batch_wait(struct sc_target *t, int k, int *failed, struct sc_err *e)
{
	struct sc_target_batch *b = &t->batch;
	SC_CHECK(sc_plugin_host_wait(lib_of(running(t))->host, k, failed, e));
	const size_t world = (size_t)b->c[0].world;
	const struct sc_tensor *out = (const struct sc_tensor *)b->mem + (size_t)b->n * world;
	for (; b->copied <= k; b->copied++)
		memcpy(b->io[b->copied], out + (size_t)b->copied * world, sizeof *out * world);
	return SC_OK;
}

static void plugin_batch_settle(struct sc_target *t)
{
	const struct sc_plugin_lib *lib = lib_of(running(t));
	if (lib)
		sc_plugin_host_settle(lib->host);
}
