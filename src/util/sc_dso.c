/* sc_dso: loading the optional parts. */
#include "sc_dso.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_PARTS 8

static struct part {
	char file[64];
	void *handle; /* NULL: it could not be loaded (why) */
	char why[SC_ERR_MAX - 64];
} parts[MAX_PARTS];
static int nparts;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The folder of the running binary ("" when unknown). */
static void exe_dir(char *dir, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", dir, n - 1);
	dir[k > 0 ? k : 0] = '\0';
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
}

static void load(struct part *p)
{
	char dir[PATH_MAX], path[PATH_MAX + 80];
	exe_dir(dir, sizeof dir);
	static const char *const where[] = {"/", "/../", "/../lib/"};
	const char *first = NULL;
	char first_why[sizeof p->why] = "";
	for (size_t i = 0; dir[0] && i < sizeof where / sizeof where[0]; i++) {
		snprintf(path, sizeof path, "%s%s%s", dir, where[i], p->file);
		if (access(path, R_OK) != 0)
			continue;
		if ((p->handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL)))
			return;
		if (!first) { /* found but not loadable: its missing dependency is the news */
			first = path;
			snprintf(first_why, sizeof first_why, "%s", dlerror());
		}
	}
	if (!first && (p->handle = dlopen(p->file, RTLD_NOW | RTLD_GLOBAL))) /* LD_LIBRARY_PATH */
		return;
	const char *err = first ? NULL : dlerror();
	if (first)
		snprintf(p->why, sizeof p->why, "%s", first_why);
	else if (err && !strstr(err, p->file)) /* on the path, but a dependency is missing */
		snprintf(p->why, sizeof p->why, "%.300s", err);
	else
		snprintf(p->why, sizeof p->why, "%s is not next to the shardcheck binary (%.160s) nor on the library path",
			 p->file, dir[0] ? dir : "?");
}

enum sc_status sc_dso_load(const char *file, void **handle, struct sc_err *e)
{
	pthread_mutex_lock(&lock);
	struct part *p = NULL;
	for (int i = 0; i < nparts && !p; i++)
		if (strcmp(parts[i].file, file) == 0)
			p = &parts[i];
	if (!p && nparts < MAX_PARTS) {
		p = &parts[nparts++];
		snprintf(p->file, sizeof p->file, "%s", file);
		load(p);
	}
	void *h = p ? p->handle : NULL;
	char why[sizeof p->why];
	snprintf(why, sizeof why, "%s", p ? p->why : "too many parts");
	pthread_mutex_unlock(&lock);
	if (!h)
		return SC_ERR(e, SC_E_UNAVAIL, "%s", why);
	*handle = h;
	return SC_OK;
}

sc_dso_fn sc_dso_sym(void *handle, const char *name)
{
	void *p = dlsym(handle, name);
	sc_dso_fn f = NULL;
	if (p) /* (an object pointer becomes a function pointer only this way in ISO C) */
		memcpy(&f, &p, sizeof f);
	return f;
}
