/* sc_npy: .npy writer and atomic file helpers. */
#include "sc_npy.h"
#include "sc_devmem.h"
#include "sc_fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *descr(enum sc_dtype dt)
{
	switch (dt) {
	case SC_I8: return "|i1";
	case SC_U8: case SC_F8E4M3: case SC_F8E5M2: return "|u1";
	case SC_I32: return "<i4";
	case SC_U32: return "<u4";
	case SC_I64: return "<i8";
	case SC_U64: return "<u8";
	case SC_F32: return "<f4";
	case SC_F64: return "<f8";
	case SC_F16: case SC_BF16: return "<u2";
	case SC_NDTYPES: break;
	}
	return "|u1";
}

enum sc_status sc_npy_write(const char *path, const struct sc_tensor *t, enum sc_dtype dt,
			    struct sc_err *e)
{
	char hdr[512];
	int k = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (",
			 t->buf->esize == 8 && dt != SC_I64 && dt != SC_F64 && dt != SC_U64 ? "<u8" : descr(dt));
	for (int d = 0; d < t->ndim; d++)
		k += snprintf(hdr + k, sizeof hdr - (size_t)k, "%lld%s", (long long)t->shape[d],
			      t->ndim == 1 ? "," : (d + 1 < t->ndim ? ", " : ""));
	k += snprintf(hdr + k, sizeof hdr - (size_t)k, "), }");
	/* magic(6) + version(2) + len(2) + header, padded with spaces to 64, '\n' */
	int total = 10 + k + 1;
	int pad = (64 - total % 64) % 64;
	const size_t es = t->buf->esize;
	const int64_t n = sc_tensor_numel(t);
	size_t len = (size_t)(10 + k + pad + 1) + (size_t)n * es;
	unsigned char *buf = malloc(len);
	if (!buf)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	uint16_t hl = (uint16_t)(k + pad + 1);
	buf[8] = (unsigned char)(hl & 0xff);
	buf[9] = (unsigned char)(hl >> 8);
	memcpy(buf + 10, hdr, (size_t)k);
	memset(buf + 10 + k, ' ', (size_t)pad);
	buf[10 + k + pad] = '\n';
	struct sc_buf b = {buf + 10 + k + pad + 1, n, (unsigned)es, NULL, 0, NULL};
	struct sc_tensor dst = *t, src = *t;
	dst.buf = &b;
	dst.offset = 0;
	sc_contig_strides(t->shape, t->ndim, dst.stride);
	struct sc_buf hb = *t->buf;
	unsigned char *host = NULL;
	if (t->buf->dm) { /* a device buffer: its bits come over first */
		struct sc_devmem *dm = t->buf->dm;
		const size_t bytes = (size_t)t->buf->nelem * t->buf->esize;
		host = malloc(bytes ? bytes : 1);
		if (!host || dm->ops->sync(dm) || dm->ops->download(dm, host, t->buf->data, bytes)) {
			free(host);
			free(buf);
			return SC_ERR(e, SC_E_INTERNAL, "%s: could not read a device buffer back", path);
		}
		hb.data = host;
		hb.dm = NULL;
		src.buf = &hb;
	}
	sc_tensor_copy(&dst, &src);
	enum sc_status st = sc_fs_write_atomic(path, buf, len, e);
	free(host);
	free(buf);
	return st;
}
