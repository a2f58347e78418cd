/* fuzz_replay: runs every file of fuzz corpus folders through a fuzz entry
 * point, without libFuzzer, so the fuzz corpus is a regression suite in
 * every build. Usage: fuzz_replay case|spec PATH...  (files or folders) */
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
	if (argc < 3 || (strcmp(argv[1], "case") && strcmp(argv[1], "spec"))) {
		fprintf(stderr, "usage: fuzz_replay case|spec PATH...\n");
		return 2;
	}
	int (*fn)(const uint8_t *, size_t) = argv[1][0] == 'c' ? sc_fuzz_case : sc_fuzz_spec;
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
