/* sc_fs: atomic writes (temporary file, fsync, rename), reads of regular
 * files only, mkdir -p. */
#define _DEFAULT_SOURCE /* realpath */
#define _XOPEN_SOURCE 700 /* nftw */
#include "sc_fs.h"
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *sc_fs_kind(unsigned m)
{
	const mode_t t = (mode_t)m & S_IFMT;
	return t == S_IFREG ? "a regular file" : t == S_IFIFO ? "a FIFO" : t == S_IFDIR ? "a directory"
	       : t == S_IFCHR ? "a character device" : t == S_IFBLK ? "a block device"
	       : t == S_IFSOCK ? "a socket" : t == S_IFLNK ? "a symlink" : "an unknown kind of file";
}

enum sc_status sc_fs_read_regular(const char *path, size_t max_bytes, char **buf, size_t *len,
				  struct sc_err *e)
{
	/* stat first: opening a device can act (a tape rewinds, a watchdog
	 * arms), and a FIFO's open could block without O_NONBLOCK */
	struct stat st;
	if (stat(path, &st) != 0)
		return SC_ERR(e, SC_E_IO, "%s: cannot open: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return SC_ERR(e, SC_E_IO, "%s: not a regular file (%s); refusing to read", path, sc_fs_kind(st.st_mode));
	const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return SC_ERR(e, SC_E_IO, "%s: cannot open: %s", path, strerror(errno));
	enum sc_status rc = SC_OK;
	char *b = NULL;
	size_t n = 0;
	/* the descriptor is what is read: swapped for a FIFO since the stat, it is refused here */
	if (fstat(fd, &st) != 0) {
		rc = SC_ERR(e, SC_E_IO, "%s: cannot stat: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = SC_ERR(e, SC_E_IO, "%s: not a regular file (%s); refusing to read", path, sc_fs_kind(st.st_mode));
		goto out;
	}
	/* a regular file: reads wait for the data again (O_NONBLOCK could make
	 * one under a mandatory lock say EAGAIN) */
	const int fl = fcntl(fd, F_GETFL);
	if (fl != -1)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	/* the size as stat saw it is a hint (a file may grow, /proc says 0):
	 * read to the end, or to max_bytes + 1, which says "too large" */
	size_t cap = st.st_size > 0 && (unsigned long long)st.st_size <= max_bytes ? (size_t)st.st_size + 1 : 4096;
	for (;;) {
		if (n == cap || !b) {
			cap = !b ? cap : cap * 2;
			if (cap > max_bytes + 1)
				cap = max_bytes + 1;
			char *nb = realloc(b, cap + 1);
			if (!nb) {
				rc = SC_ERR(e, SC_E_NOMEM, "%s: out of memory reading %zu bytes", path, cap);
				goto out;
			}
			b = nb;
		}
		const ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = SC_ERR(e, SC_E_IO, "%s: cannot read: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max_bytes)
			break;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
out:
	free(b);
	close(fd);
	return rc;
}

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

long sc_fs_read_small(const char *path, char *buf, size_t n)
{
	const int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	const ssize_t len = n ? read(fd, buf, n - 1) : 0;
	close(fd);
	if (n)
		buf[len > 0 ? len : 0] = '\0';
	return len > 0 ? (long)len : 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) == 0 || errno == ENOENT ? 0 : -1;
}

enum sc_status sc_fs_remove_tree(const char *path, struct sc_err *e)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? SC_OK : SC_ERR(e, SC_E_IO, "%s: %s", path, strerror(errno));
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return SC_ERR(e, SC_E_IO, "cannot remove %s: %s", path, strerror(errno));
	return SC_OK;
}

enum sc_status sc_fs_absolute(const char *path, char *out, size_t n, struct sc_err *e)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return SC_ERR(e, SC_E_IO, "%s: %s", path, strerror(errno));
	if (strlen(real) >= n)
		return SC_ERR(e, SC_E_IO, "%s: the absolute path is too long", path);
	memcpy(out, real, strlen(real) + 1);
	return SC_OK;
}
