/* sc_fs: atomic writes (temporary file, fsync, rename) and mkdir -p. */
#define _DEFAULT_SOURCE /* realpath */
#include "sc_fs.h"
#include <limits.h>
#include <stdlib.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum sc_status sc_fs_write_atomic(const char *path, const void *data, size_t len, struct sc_err *e)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f)
		return SC_ERR(e, SC_E_IO, "%s: cannot write: %s", tmp, strerror(errno));
	if (len && fwrite(data, 1, len, f) != len) {
		fclose(f);
		remove(tmp);
		return SC_ERR(e, SC_E_IO, "%s: write failed: %s", tmp, strerror(errno));
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0) {
		remove(tmp);
		return SC_ERR(e, SC_E_IO, "%s: write failed: %s", tmp, strerror(errno));
	}
	if (rename(tmp, path) != 0) {
		remove(tmp);
		return SC_ERR(e, SC_E_IO, "%s: cannot rename into place: %s", path, strerror(errno));
	}
	return SC_OK;
}

enum sc_status sc_fs_mkdirs(const char *path, struct sc_err *e)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return SC_ERR(e, SC_E_IO, "%s: cannot create directory: %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0777) != 0 && errno != EEXIST)
		return SC_ERR(e, SC_E_IO, "%s: cannot create directory: %s", buf, strerror(errno));
	return SC_OK;
}

enum sc_status sc_fs_relpath(const char *from, const char *to, char *out, size_t n, struct sc_err *e)
{
	char a[PATH_MAX], b[PATH_MAX];
	if (!realpath(from, a))
		return SC_ERR(e, SC_E_IO, "%s: %s", from, strerror(errno));
	if (!realpath(to, b))
		return SC_ERR(e, SC_E_IO, "%s: %s", to, strerror(errno));
	/* the longest common prefix that ends at a component boundary */
	size_t common = 0;
	for (size_t i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			common = i;
	if (a[strlen(a)] == '\0' && strncmp(a, b, strlen(a)) == 0 && b[strlen(a)] == '/')
		common = strlen(a);
	size_t k = 0;
	out[0] = '\0';
	for (const char *p = a + common; strcmp(a, "/") != 0 && *p; p++)
		if (*p == '/' && k + 4 < n)
			k += (size_t)snprintf(out + k, n - k, "../");
	const int w = snprintf(out + k, n - k, "%s", b + common + (b[common] == '/'));
	if (w < 0 || (size_t)w >= n - k)
		return SC_ERR(e, SC_E_IO, "%s: path too long", to);
	return SC_OK;
}
