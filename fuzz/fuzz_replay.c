/* fuzz_replay: runs every file of fuzz corpus folders through a fuzz entry
 * point, without libFuzzer, so the fuzz corpus is a regression suite in
 * every build. Usage: fuzz_replay case|spec|casefile PATH...  (files or folders) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sc_fuzz.h"

static long replay_file(int (*fn)(const uint8_t *, size_t), const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fuzz_replay: %s: cannot open\n", path);
		exit(2);
	}
	uint8_t *buf = malloc(1 << 20);
	size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	fn(buf, n);
	free(buf);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(const uint8_t *, size_t);
	} entries[] = {{"case", sc_fuzz_case}, {"spec", sc_fuzz_spec}, {"casefile", sc_fuzz_casefile}};
	int (*fn)(const uint8_t *, size_t) = NULL;
	for (size_t k = 0; argc >= 3 && k < sizeof entries / sizeof entries[0]; k++)
		if (strcmp(argv[1], entries[k].name) == 0)
			fn = entries[k].fn;
	if (!fn) {
		fprintf(stderr, "usage: fuzz_replay case|spec|casefile PATH...\n");
		return 2;
	}
	long n = 0;
	for (int i = 2; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "fuzz_replay: %s: no such file or folder\n", argv[i]);
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			n += replay_file(fn, argv[i]);
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[i], de->d_name);
			n += replay_file(fn, path);
		}
		if (d)
			closedir(d);
	}
	printf("fuzz_replay %s: %ld inputs, no finding\n", argv[1], n);
	printf("%ld passed, 0 failed\n", n);
	return 0;
}
