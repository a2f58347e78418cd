/* sc_sigsafe: see sc_sigsafe.h. */
#include "sc_sigsafe.h"

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
