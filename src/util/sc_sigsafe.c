/* sc_sigsafe: see sc_sigsafe.h. */
#include "sc_sigsafe.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

void sc_sigsafe_num(char *buf, long v)
{
	char t[24];
	int k = 0;
	if (v < 0)
		v = 0;
	do
		t[k++] = (char)('0' + v % 10);
	while ((v /= 10) > 0 && k < 23);
	while (k)
		*buf++ = t[--k];
	*buf = '\0';
}

void sc_sigsafe_cat(char *dst, size_t n, const char *s)
{
	size_t l = strlen(dst);
	while (*s && l + 1 < n)
		dst[l++] = *s++;
	dst[l] = '\0';
}

void sc_sigsafe_write(int fd, const char *s)
{
	const ssize_t w = write(fd, s, strlen(s));
	(void)w;
}

void sc_sigsafe_write_num(int fd, long v)
{
	char b[24];
	sc_sigsafe_num(b, v);
	sc_sigsafe_write(fd, b);
}

int sc_sigsafe_proc_stat(long pid, char *state, long *ppid)
{
	char path[48] = "/proc/", digits[24], buf[512];
	sc_sigsafe_num(digits, pid);
	sc_sigsafe_cat(path, sizeof path, digits);
	sc_sigsafe_cat(path, sizeof path, "/stat");
	const int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	const ssize_t got = read(fd, buf, sizeof buf - 1);
	close(fd);
	ssize_t paren = -1; /* the last ')': comm may hold one */
	for (ssize_t i = 0; i < got; i++)
		if (buf[i] == ')')
			paren = i;
	if (paren < 0 || paren + 4 >= got)
		return -1;
	long p = 0;
	for (ssize_t i = paren + 4; i < got && buf[i] >= '0' && buf[i] <= '9'; i++)
		p = p * 10 + (buf[i] - '0');
	*state = buf[paren + 2];
	*ppid = p;
	return 0;
}
