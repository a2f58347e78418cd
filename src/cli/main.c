/* shardcheck: command-line interface.
 *
 * The CLI owns the terminal: the library never prints. With --json -,
 * standard output carries the JSON document only and human lines go to
 * standard error. Exit codes: 0 every property held (or every corpus
 * expectation was met), 1 a counterexample was found (or an expectation
 * was not met), 2 usage, spec or environment error. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sc_casefile.h"
#include "sc_check.h"
#include "sc_fuzzloop.h"
#include "sc_plugin.h"
#include "sc_npy.h"
#include "sc_builtin.h"
#include "sc_report.h"
#include "sc_fs.h"

#define MAX_TARGETS 1024

static const char *const usage_main =
	"usage: shardcheck COMMAND [options]\n"
	"\n"
	"Property-based checking of the layout transforms around collectives.\n"
	"\n"
	"commands:\n"
	"  check [options] [TARGET...]   check properties on generated cases; TARGET is a\n"
	"                                .sc spec, a directory of specs, builtin:NAME or\n"
	"                                builtin:all (the default)\n"
	"  eval SPEC --world P --sizes n=v,... [--dtype T] [--seed S] [--dump DIR]\n"
	"                                run one explicit case and show the result\n"
	"  repro CASE [--dump DIR]       replay a .case file: expected and actual per rank\n"
	"  fuzz [options] [TARGET...]    fuzz for --time (e.g. 8h), shrink and save every new\n"
	"                                failure at once; replays earlier findings first\n"
	"  gate --plugin LIB.so [--baseline OLD.so] [TRANSFORM...]\n"
	"                                check a plugin's kernels (CI gate); every property,\n"
	"                                or bit-for-bit against a baseline build\n"
	"  list                          builtins, properties, dtypes, backends\n"
	"  help COMMAND                  help on a command\n"
	"\n"
	"options: --version, --help\n"
	"exit codes: 0 all properties held (or, for specs found in a directory, every\n"
	"            `expect` was met),\n"
	"            1 a counterexample was found (or an expectation was not met),\n"
	"            2 usage, spec or environment error\n";

static const char *const usage_check =
	"usage: shardcheck check [options] [TARGET...]\n"
	"\n"
	"TARGET: a .sc spec, a .case file, a directory (every .sc and .case below it),\n"
	"builtin:NAME, builtin:all.\n"
	"No target: builtin:all.\n"
	"\n"
	"  --backend NAME      sim (default), mpi, cuda, nccl, emu (see `shardcheck list`)\n"
	"  --cases N           cases per target and property (default 1000)\n"
	"  --time SECONDS      stop each target and property after this long\n"
	"  --seed S            run seed (default: random, always printed); the same seed\n"
	"                      replays the same cases\n"
	"  --world LO..HI      world sizes (default 1..8); --world P for one\n"
	"  --dtypes LIST       comma-separated dtypes (default all twelve)\n"
	"  --max-elems N       global elements per case (default 65536)\n"
	"  --case-memory MIB   buffer memory one case may use, every rank's together\n"
	"                      (default 4096; the GPU's for big cases on cuda)\n"
	"  --property NAME     check only this property (see `shardcheck list`)\n"
	"  --chain A.sc,B.sc   check a chain of specs (compose; roundtrip when it returns\n"
	"                      to its input placement)\n"
	"  --no-shrink         report the first failing case as found\n"
	"  --timeout SECONDS   abort when one case runs longer (a hung or crashed rank):\n"
	"                      the case is saved first (DIR/failures/inflight.case with\n"
	"                      --report, else ./shardcheck-inflight.case)\n"
	"  --report DIR        write DIR/report.json, junit.xml, summary.md and\n"
	"                      failures/NAME.case + NAME.md (each as soon as it is shrunk)\n"
	"  --json FILE|-       write the JSON report to FILE, or alone to stdout\n"
	"  -q, -v              quiet (failures and the summary only) / verbose\n";

static const char *const usage_eval =
	"usage: shardcheck eval TARGET --world P --sizes n=v,... [options]\n"
	"\n"
	"Runs one explicit case of a spec (or --chain A,B, or builtin:NAME with\n"
	"--params dim=I[,concat=J][,op=OP]) and checks it.\n"
	"\n"
	"  --world P           world size (required)\n"
	"  --sizes n=v,...     every dim's global size (required)\n"
	"  --dtype T           element type (default i32)\n"
	"  --seed S            value seed (default 0)\n"
	"  --property NAME     property to check (default semantics)\n"
	"  --dump DIR          write DIR/rank<r>.{input,output,expected}.npy\n"
	"  --backend NAME, --case-memory MIB   as for check\n"
	"exit: 0 the property holds, 1 it fails (or a step fails at run time), 2 error\n";

static const char *const usage_repro =
	"usage: shardcheck repro CASE [--dump DIR] [--backend NAME]\n"
	"\n"
	"Replays one .case file exactly: prints, per rank, the expected and actual\n"
	"tensors in full when small (wrong elements marked '!'), and the first wrong\n"
	"elements with coordinates and provenance.\n"
	"exit: 0 the case passes now, 1 it still fails, 2 error\n";

static const char *const usage_gate =
	"usage: shardcheck gate --plugin LIB.so [--baseline OLD.so] [options] [TRANSFORM...]\n"
	"\n"
	"Loads a plugin (shardcheck/plugin.h) and checks every property on every\n"
	"transform (or the ones named) against the contract it declares; with\n"
	"--baseline, also that it gives the baseline's output bits on the same cases\n"
	"(differential), which needs no stated output placement. Each case runs the\n"
	"plugin in a child process: a crash, abort, exception or hang (--timeout) is a\n"
	"failure of that case, shrunk like any other. Failures are shrunk and written\n"
	"with --report DIR (junit.xml for the CI page, summary.md for the pull request).\n"
	"The seed is 0 unless --seed S or --seed random, so a gate never flakes.\n"
	"\n"
	"  --plugin LIB.so     the candidate build (required)\n"
	"  --baseline OLD.so   the reference build: transforms are matched by name\n"
	"  --timeout SECONDS   per run of the plugin (default 10)\n"
	"  --cases, --time, --seed, --backend, --world, --dtypes, --max-elems,\n"
	"  --property, --no-shrink, --report, --json, -q, -v   as for check\n"
	"exit: 0 every property holds, 1 a failure (with a minimal case), 2 error\n";

static const char *const usage_fuzz =
	"usage: shardcheck fuzz [options] [TARGET...]\n"
	"\n"
	"An unattended fuzz campaign: replays the findings of earlier runs\n"
	"(CORPUS/findings/*.case: still failing, or fixed), then cycles every target\n"
	"and property with fresh seeds until the time is up, shrinking each failure,\n"
	"deduplicating by signature (target, property, shrunk case) and writing each\n"
	"new one to REPORT/failures and CORPUS/findings before announcing it.\n"
	"SIGINT or SIGTERM stops it cleanly with the report written.\n"
	"Default targets: builtin:all and every spec in CORPUS.\n"
	"\n"
	"  --time DURATION     total time: 90, 90s, 30m, 8h (default 60s)\n"
	"  --corpus DIR        specs and findings (default corpus)\n"
	"  --report DIR        report folder (default reports/fuzz)\n"
	"  --jobs N            parallel workers on different seeds (default 1)\n"
	"  --backend, --seed, --world, --dtypes, --max-elems, -q   as for check\n"
	"exit: 0 nothing new and no earlier finding still failing, 1 otherwise, 2 error\n";

struct cli {
	struct sc_check_opts co;
	const char *backend;
	const char *property;
	const char *report_dir;
	const char *json;
	const char *chain;
	const char *sizes;
	const char *params;
	const char *dump;
	int quiet, verbose, seed_given, world, jobs;
	double timeout, total;
	size_t case_memory; /* bytes per case (every rank's buffers); 0: 4 GiB */
	const char *corpus;
	const char *usage; /* printed by --help */
	const char *plugin, *baseline;
	int seed_random;
	enum sc_dtype dtype;
	const char *targets[MAX_TARGETS];
	int ntargets;
};

static int die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "shardcheck: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see shardcheck help)\n");
	return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_dtypes(const char *s, uint32_t *mask)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", s);
	*mask = 0;
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		enum sc_dtype dt;
		if (strcmp(tok, "all") == 0) {
			*mask = (1u << SC_NDTYPES) - 1;
			continue;
		}
		if (sc_dtype_parse(tok, &dt) != 0)
			return -1;
		*mask |= 1u << dt;
	}
	return *mask ? 0 : -1;
}

/* Options shared by check and eval. Returns 0, or an exit code. */
static int parse_args(struct cli *c, int argc, char **argv, int is_eval)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		char key[64];
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			const char *eq = strchr(a, '=');
			size_t kl = eq ? (size_t)(eq - a) : strlen(a);
			if (kl >= sizeof key)
				kl = sizeof key - 1;
			memcpy(key, a, kl);
			key[kl] = '\0';
			static const char *const flags[] = {"--no-shrink", "--help", NULL};
			int is_flag = 0;
			for (int k = 0; flags[k]; k++)
				is_flag |= strcmp(key, flags[k]) == 0;
			if (!is_flag) {
				if (eq)
					val = eq + 1;
				else if (i + 1 < argc)
					val = argv[++i];
				else
					return die_usage("option %s needs a value", key);
			}
		} else if (strcmp(a, "-q") == 0) {
			c->quiet = 1;
			continue;
		} else if (strcmp(a, "-v") == 0) {
			c->verbose = 1;
			continue;
		} else if (strcmp(a, "-h") == 0) {
			fputs(c->usage ? c->usage : is_eval ? usage_eval : usage_check, stdout);
			return -1;
		} else if (a[0] == '-' && a[1]) {
			return die_usage("unknown option '%s'", a);
		} else {
			if (c->ntargets >= MAX_TARGETS)
				return die_usage("too many targets (at most %s)", "1024");
			c->targets[c->ntargets++] = a;
			continue;
		}
		uint64_t u;
		if (strcmp(key, "--help") == 0) {
			fputs(c->usage ? c->usage : is_eval ? usage_eval : usage_check, stdout);
			return -1;
		} else if (strcmp(key, "--no-shrink") == 0) {
			c->co.no_shrink = 1;
		} else if (strcmp(key, "--timeout") == 0) {
			char *end;
			double s = strtod(val, &end);
			if (*end || s <= 0 || s > 86400)
				return die_usage("--timeout needs seconds in (0, 86400], got '%s'", val);
			c->timeout = s;
		} else if (strcmp(key, "--jobs") == 0) {
			if (parse_u64(val, &u) || u < 1 || u > 256)
				return die_usage("--jobs needs 1..256, got '%s'", val);
			c->jobs = (int)u;
		} else if (strcmp(key, "--corpus") == 0) {
			c->corpus = val;
		} else if (strcmp(key, "--backend") == 0) {
			c->backend = val;
		} else if (strcmp(key, "--cases") == 0) {
			if (parse_u64(val, &u) || u == 0)
				return die_usage("--cases needs a positive integer, got '%s'", val);
			c->co.cases = (long)u;
		} else if (strcmp(key, "--time") == 0) {
			char *end;
			double s = strtod(val, &end);
			double mult = strcmp(end, "h") == 0 ? 3600 : strcmp(end, "m") == 0 ? 60
				      : (strcmp(end, "s") == 0 || !*end) ? 1 : -1;
			if (mult < 0 || s <= 0)
				return die_usage("--time needs a duration (90, 90s, 30m, 8h), got '%s'", val);
			c->co.seconds = s * mult;
			c->total = s * mult;
		} else if (strcmp(key, "--plugin") == 0) {
			c->plugin = val;
		} else if (strcmp(key, "--baseline") == 0) {
			c->baseline = val;
		} else if (strcmp(key, "--seed") == 0 && strcmp(val, "random") == 0) {
			c->seed_random = 1;
		} else if (strcmp(key, "--seed") == 0) {
			if (parse_u64(val, &u))
				return die_usage("--seed needs a non-negative integer, got '%s'", val);
			c->co.seed = u;
			c->seed_given = 1;
		} else if (strcmp(key, "--world") == 0) {
			long lo, hi;
			char tail;
			if (is_eval) {
				if (parse_u64(val, &u) || u < 1 || u > SC_MAX_WORLD)
					return die_usage("--world needs a world size 1..256, got '%s'", val);
				c->world = (int)u;
				continue;
			}
			if (sscanf(val, "%ld..%ld%c", &lo, &hi, &tail) == 2) {
			} else if (sscanf(val, "%ld%c", &lo, &tail) == 1) {
				hi = lo;
			} else {
				return die_usage("--world needs LO..HI or P, got '%s'", val);
			}
			if (lo < 1 || hi < lo || hi > SC_MAX_WORLD)
				return die_usage("--world range must be within 1..256, got '%s'", val);
			c->co.gen.world_lo = (int)lo;
			c->co.gen.world_hi = (int)hi;
		} else if (strcmp(key, "--dtypes") == 0) {
			if (parse_dtypes(val, &c->co.gen.dtypes))
				return die_usage("--dtypes: unknown dtype in '%s' (see shardcheck list)", val);
		} else if (strcmp(key, "--dtype") == 0) {
			if (sc_dtype_parse(val, &c->dtype))
				return die_usage("--dtype: unknown dtype '%s' (see shardcheck list)", val);
		} else if (strcmp(key, "--case-memory") == 0) {
			if (parse_u64(val, &u) || u == 0 || u > ((uint64_t)1 << 30))
				return die_usage("--case-memory needs MiB in 1..2^30, got '%s'", val);
			c->case_memory = (size_t)u << 20;
		} else if (strcmp(key, "--max-elems") == 0) {
			if (parse_u64(val, &u) || u == 0)
				return die_usage("--max-elems needs a positive integer, got '%s'", val);
			c->co.gen.max_elems = (int64_t)u;
		} else if (strcmp(key, "--property") == 0) {
			if (!sc_property_find(val))
				return die_usage("unknown property '%s' (see shardcheck list)", val);
			c->property = val;
		} else if (strcmp(key, "--report") == 0) {
			c->report_dir = val;
		} else if (strcmp(key, "--json") == 0) {
			c->json = val;
		} else if (strcmp(key, "--chain") == 0) {
			c->chain = val;
		} else if (strcmp(key, "--sizes") == 0 && is_eval) {
			c->sizes = val;
		} else if (strcmp(key, "--params") == 0 && is_eval) {
			c->params = val;
		} else if (strcmp(key, "--dump") == 0 && is_eval) {
			c->dump = val;
		} else {
			return die_usage("unknown option '%s'", key);
		}
	}
	return 0;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .sc below dir, sorted; paths malloc'd into out. */
static int collect_dir(const char *dir, char **out, int *n, int max)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char *names[4096];
	int k = 0;
	struct dirent *de;
	while ((de = readdir(d)) && k < 4096) {
		if (de->d_name[0] == '.')
			continue;
		size_t l = strlen(dir) + strlen(de->d_name) + 2;
		char *p = malloc(l);
		if (!p)
			break;
		snprintf(p, l, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", de->d_name);
		names[k++] = p;
	}
	closedir(d);
	qsort(names, (size_t)k, sizeof names[0], cmp_str);
	for (int i = 0; i < k; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			collect_dir(names[i], out, n, max);
			free(names[i]);
		} else if ((ends_with(names[i], ".sc") || ends_with(names[i], ".case")) && *n < max) {
			out[(*n)++] = names[i];
		} else {
			free(names[i]);
		}
	}
	return 0;
}

static int load_targets(struct cli *c, struct sc_target *t, int *nt, FILE *log)
{
	struct sc_err e;
	int n = 0;
	if (c->chain) {
		char buf[4096];
		const char *paths[SC_MAX_CHAIN];
		int np = 0;
		snprintf(buf, sizeof buf, "%s", c->chain);
		for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
			if (np >= SC_MAX_CHAIN)
				return die_usage("--chain takes at most %s specs", "8");
			paths[np++] = tok;
		}
		if (sc_target_chain(&t[n++], paths, np, &e) != SC_OK) {
			fprintf(log, "%s\n", e.msg);
			*nt = n;
			return 2;
		}
	}
	if (c->ntargets == 0 && !c->chain)
		c->targets[c->ntargets++] = "builtin:all";
	for (int i = 0; i < c->ntargets; i++) {
		const char *a = c->targets[i];
		if (strncmp(a, "builtin:", 8) == 0) {
			const struct sc_builtin_family *fam;
			if (strcmp(a + 8, "all") == 0) {
				const struct sc_builtin_family *const *fams;
				const int nf = sc_builtin_families(&fams);
				for (int k = 0; k < nf && n < MAX_TARGETS; k++)
					sc_target_builtin(&t[n++], fams[k], &e);
				continue;
			}
			if (sc_builtin_find(a + 8, &fam) != SC_OK) {
				*nt = n;
				return die_usage("unknown builtin '%s' (see shardcheck list)", a);
			}
			sc_target_builtin(&t[n++], fam, &e);
			continue;
		}
		struct stat st;
		if (stat(a, &st) != 0) {
			fprintf(log, "shardcheck: %s: %s\n", a, strerror(errno));
			*nt = n;
			return 2;
		}
		char *files[MAX_TARGETS];
		int nf = 0;
		if (S_ISDIR(st.st_mode)) {
			collect_dir(a, files, &nf, MAX_TARGETS);
			if (nf == 0)
				fprintf(log, "shardcheck: %s: no .sc specs or .case files found\n", a);
		} else {
			files[nf++] = strdup(a);
		}
		int bad = 0;
		for (int k = 0; k < nf; k++) {
			if (n >= MAX_TARGETS) {
				free(files[k]);
				continue;
			}
			enum sc_status ls = SC_OK;
			if (!bad)
				ls = ends_with(files[k], ".case") ? sc_casefile_load(files[k], &t[n], &e)
								  : sc_target_from_spec_file(&t[n], files[k], &e);
			if (!bad && ls != SC_OK) {
				fprintf(log, "%s\n", e.msg);
				bad = 1;
			} else if (!bad) {
				t[n++].corpus = S_ISDIR(st.st_mode);
			}
			free(files[k]);
		}
		if (bad) {
			*nt = n;
			return 2;
		}
	}
	*nt = n;
	return 0;
}

/* Progress on a terminal: one line on stderr, rewritten in place. */
static void progress(void *u, const char *target, const char *property, long cases, long total,
		     double elapsed)
{
	(void)u;
	if (elapsed < 0.5)
		return;
	fprintf(stderr, "\r\033[K  %s %s: %ld/%ld cases, %.0f cases/s", target, property, cases, total,
		cases / elapsed);
	fflush(stderr);
}

/* The case in flight, for the timeout and termination handlers: text
 * formatted before each case, written from the handler with write(2) only.
 * Signal handlers can reach no other state, hence file scope. */
static struct {
	char path[1024], tmp[1040];
	char text[4096];
	volatile sig_atomic_t len;
	int leader;
	double seconds;
} inflight;

static void inflight_handler(int sig)
{
	if (inflight.leader && inflight.len > 0) {
		int fd = open(inflight.tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			ssize_t w = write(fd, inflight.text, (size_t)inflight.len);
			(void)w;
			close(fd);
			rename(inflight.tmp, inflight.path);
		}
		static const char m1[] = "\nshardcheck: aborting: the running case ";
		static const char m2[] = "exceeded --timeout (a rank hung or crashed); saved to ";
		static const char m3[] = "was terminated (a rank crashed or was killed); saved to ";
		ssize_t w = write(2, m1, sizeof m1 - 1);
		w = sig == SIGALRM ? write(2, m2, sizeof m2 - 1) : write(2, m3, sizeof m3 - 1);
		w = write(2, inflight.path, strlen(inflight.path));
		w = write(2, "\n", 1);
		w = write(2, inflight.text, (size_t)inflight.len);
		(void)w;
	}
	_exit(1);
}

static void on_case(void *u, struct sc_target *t, const struct sc_property *p, const struct sc_case *c)
{
	const char *backend = u;
	char text[sizeof inflight.text];
	if (inflight.leader &&
	    sc_casefile_format(t, p->name, backend, c, -1, text, sizeof text, NULL) == SC_OK) {
		inflight.len = 0;
		memcpy(inflight.text, text, strlen(text));
		inflight.len = (sig_atomic_t)strlen(text);
	}
	alarm((unsigned)(inflight.seconds + 0.999));
}

static void arm_inflight(struct cli *c, struct sc_backend *be)
{
	inflight.leader = sc_backend_leader(be);
	inflight.seconds = c->timeout;
	snprintf(inflight.path, sizeof inflight.path, "%s%s", c->report_dir ? c->report_dir : ".",
		 c->report_dir ? "/failures/inflight.case" : "/shardcheck-inflight.case");
	if (c->report_dir) {
		char dir[1100];
		snprintf(dir, sizeof dir, "%s/failures", c->report_dir);
		sc_fs_mkdirs(dir, NULL);
	}
	snprintf(inflight.tmp, sizeof inflight.tmp, "%s.tmp", inflight.path);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = inflight_handler;
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	c->co.on_case = on_case;
	c->co.on_case_ctx = (void *)c->backend;
}

/* Only process 0 talks: the others' stdout and stderr go nowhere. */
static void quiet_followers(struct sc_backend *be)
{
	if (sc_backend_leader(be))
		return;
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
		return;
}

static uint64_t random_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
	return sc_mix_next(&s) % 1000000000000ULL;
}

/* Transforms of --plugin (all, or those named) as targets; --baseline's
 * transforms matched by name. The libraries stay open in *libs. */
static int load_plugin_targets(struct cli *c, struct sc_target *t, int *nt, struct sc_plugin_lib **libs)
{
	struct sc_err e;
	*nt = 0;
	if (sc_plugin_load(c->plugin, &libs[0], &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	if (c->baseline && sc_plugin_load(c->baseline, &libs[1], &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	for (int i = 0; i < sc_plugin_count(libs[0]) && *nt < MAX_TARGETS; i++) {
		const struct sc_plugin_transform *tr = sc_plugin_get(libs[0], i), *bt = NULL;
		int wanted = c->ntargets == 0;
		for (int k = 0; k < c->ntargets; k++)
			wanted |= strcmp(c->targets[k], sc_plugin_name(tr)) == 0;
		if (!wanted)
			continue;
		if (libs[1] && !(bt = sc_plugin_find(libs[1], sc_plugin_name(tr)))) {
			fprintf(stderr, "shardcheck: %s: the baseline has no transform '%s'\n", c->baseline,
				sc_plugin_name(tr));
			return 2;
		}
		if (sc_target_plugin(&t[*nt], c->plugin, tr, bt, &e) != SC_OK) {
			fprintf(stderr, "%s\n", e.msg);
			return 2;
		}
		t[*nt].plugin_timeout = c->timeout;
		if (bt)
			snprintf(t[*nt].baseline_path, sizeof t[*nt].baseline_path, "%s", c->baseline);
		(*nt)++;
	}
	for (int k = 0; k < c->ntargets; k++) {
		int found = 0;
		for (int i = 0; i < *nt; i++)
			found |= strcmp(sc_plugin_name(t[i].plugin), c->targets[k]) == 0;
		if (!found) {
			fprintf(stderr, "shardcheck: %s: no transform '%s'\n", c->plugin, c->targets[k]);
			return 2;
		}
	}
	return 0;
}

static int cmd_check(int argc, char **argv, int full_argc, char **full_argv, int gate)
{
	static struct cli c;
	memset(&c, 0, sizeof c);
	c.backend = "sim";
	if (gate)
		c.usage = usage_gate;
	int rc = parse_args(&c, argc, argv, 0);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (gate && !c.plugin)
		return die_usage("gate needs --plugin LIB.so%s", "");
	if (!gate && (c.plugin || c.baseline))
		return die_usage("--plugin and --baseline belong to `shardcheck gate`%s", "");
	sc_gen_defaults(&c.co.gen);
	if (c.seed_random || (!c.seed_given && !gate))
		c.co.seed = random_seed();
	const int json_stdout = c.json && strcmp(c.json, "-") == 0;
	FILE *out = json_stdout ? stderr : stdout;

	struct sc_err e;
	struct sc_backend *be = NULL;
	if (sc_backend_open(c.backend, &be, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	quiet_followers(be);
	/* one seed and one world range for every process */
	sc_backend_bcast(be, &c.co.seed, sizeof c.co.seed, 0);
	const int maxw = sc_backend_max_world(be);
	if (c.co.gen.world_lo > maxw) {
		fprintf(stderr, "shardcheck: --world %d..%d needs at least %d processes, this launch has %d (mpirun -np)\n",
			c.co.gen.world_lo, c.co.gen.world_hi, c.co.gen.world_lo, maxw);
		sc_backend_close(be);
		return 2;
	}
	if (c.co.gen.world_hi > maxw)
		c.co.gen.world_hi = maxw;
	static struct sc_target targets[MAX_TARGETS];
	int nt = 0;
	struct sc_plugin_lib *libs[2] = {NULL, NULL};
	rc = gate ? load_plugin_targets(&c, targets, &nt, libs) : load_targets(&c, targets, &nt, stderr);
	if (rc) {
		fprintf(stderr, "shardcheck: nothing run\n");
		for (int i = 0; i < nt; i++)
			sc_target_free(&targets[i]);
		sc_plugin_close(libs[0]);
		sc_plugin_close(libs[1]);
		sc_backend_close(be);
		return rc;
	}
	if (c.timeout > 0 && !(gate && sc_backend_max_world(be) > 1 && !be->ops->combine))
		arm_inflight(&c, be); /* on sim, a gate's timeout is the plugin's own */
	struct sc_ctx *ctx = sc_ctx_new(be, c.co.gen.dtypes);
	if (ctx)
		ctx->arena.max_bytes = c.case_memory;
	for (int i = 0; ctx && i < nt; i++)
		if (targets[i].ops->flags & SC_TARGET_HOST_ONLY)
			ctx->arena.shared = 1; /* plugins run in child processes that write here */
	const int tty = isatty(2) && !c.quiet && sc_backend_leader(be);
	if (tty)
		c.co.progress = progress;
	const struct sc_property *const *props;
	int np = sc_properties(&props);
	struct sc_result *res = calloc((size_t)nt * (size_t)np + 1, sizeof *res);
	if (!ctx || !res) {
		fprintf(stderr, "shardcheck: out of memory\n");
		return 2;
	}
	fprintf(out, "shardcheck %s: seed %llu, backend %s, %d target%s, world %d..%d, %ld cases per property\n",
		SC_VERSION, (unsigned long long)c.co.seed, c.backend, nt, nt == 1 ? "" : "s",
		c.co.gen.world_lo, c.co.gen.world_hi, c.co.cases ? c.co.cases : 1000L);
	int nres = 0, errors = 0, unmet = 0, fails = 0, passes = 0, expected_fails = 0;
	for (int i = 0; i < nt; i++) {
		struct sc_target *t = &targets[i];
		int target_failed = 0;
		for (int k = 0; k < np; k++) {
			const struct sc_property *p = props[k];
			if (c.property && strcmp(c.property, p->name) != 0)
				continue;
			if (!p->applies(t))
				continue;
			struct sc_result *r = &res[nres];
			sc_check_run(ctx, t, p, &c.co, r);
			if (c.timeout > 0)
				alarm(0);
			if (tty)
				fprintf(stderr, "\r\033[K");
			if (r->verdict == SC_V_FAIL && c.report_dir && !t->has_case && sc_backend_leader(be) &&
			    sc_report_write_failure(c.report_dir, r, c.backend, &e) != SC_OK)
				fprintf(stderr, "shardcheck: %s\n", e.msg);
			if (r->verdict == SC_V_SKIP) {
				if (c.verbose)
					fprintf(out, "skip  %-44s %-18s not applicable to these cases\n", r->target, p->name);
				continue;
			}
			nres++;
			if (r->verdict == SC_V_ERROR) {
				errors++;
				fprintf(out, "ERROR %-44s %-18s %s\n", r->target, p->name, r->error);
				continue;
			}
			if (r->verdict == SC_V_FAIL) {
				target_failed = 1;
				fails++;
				const int exp = t->expect == 1 && t->corpus;
				if (exp)
					expected_fails++;
				if (!c.quiet || !exp) {
					fprintf(out, "FAIL  %-44s %-18s %s(case %ld, %.2fs)\n", r->target, p->name,
						exp ? "as expected " : "", r->cases, r->seconds);
					sc_report_failure_text(out, r, "      ");
				}
			} else {
				passes++;
				if (!c.quiet)
					fprintf(out, "pass  %-44s %-18s %ld cases, %.2fs\n", r->target, p->name,
						r->cases, r->seconds);
			}
			fflush(out);
		}
		if (t->corpus && t->expect >= 0 && (t->expect == 1) != target_failed) {
			unmet++;
			fprintf(out, "UNMET %-44s expected %s, but %s\n", t->name, t->expect ? "a failure" : "every property to hold",
				target_failed ? "a property failed" : "every property held");
		}
	}
	int code;
	if (errors)
		code = 2;
	else if (unmet)
		code = 1;
	else {
		int unexpected = 0;
		for (int i = 0; i < nres; i++)
			if (res[i].verdict == SC_V_FAIL && !(res[i].expected == 1 && res[i].tgt->corpus))
				unexpected = 1;
		code = unexpected ? 1 : 0;
	}
	fprintf(out, "%d checks: %d pass, %d fail (%d expected), %d error; %d expectation%s unmet; seed %llu\n",
		nres, passes, fails, expected_fails, errors, unmet, unmet == 1 ? "" : "s",
		(unsigned long long)c.co.seed);
	struct sc_report_meta meta = {SC_VERSION, c.co.seed, c.backend, full_argc, full_argv};
	if (c.report_dir && sc_backend_leader(be)) {
		if (sc_report_write(c.report_dir, &meta, res, nres, &e) != SC_OK) {
			fprintf(stderr, "shardcheck: %s\n", e.msg);
			code = 2;
		} else {
			fprintf(out, "report: %s/{report.json,junit.xml,summary.md}\n", c.report_dir);
		}
	}
	if (c.json && sc_backend_leader(be)) {
		char *doc = sc_report_json(&meta, res, nres);
		if (!doc) {
			code = 2;
		} else if (json_stdout) {
			fputs(doc, stdout);
		} else if (sc_fs_write_atomic(c.json, doc, strlen(doc), &e) != SC_OK) {
			fprintf(stderr, "shardcheck: %s\n", e.msg);
			code = 2;
		}
		free(doc);
	}
	free(res);
	sc_ctx_free(ctx);
	sc_backend_close(be);
	for (int i = 0; i < nt; i++)
		sc_target_free(&targets[i]);
	sc_plugin_close(libs[0]);
	sc_plugin_close(libs[1]);
	return code;
}

/* "s=4,b=2" into the case, by the spec's dim names. */
static int parse_sizes(const struct sc_spec *s, const char *arg, struct sc_case *cs)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", arg);
	int seen[SC_MAX_DIMS] = {0};
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		uint64_t v;
		if (!eq)
			return die_usage("--sizes: expected NAME=VALUE, got '%s'", tok);
		*eq = '\0';
		int d = -1;
		for (int k = 0; k < s->ndims; k++)
			if (strcmp(s->dim[k], tok) == 0)
				d = k;
		if (d < 0)
			return die_usage("--sizes: '%s' is not a dim of the spec", tok);
		if (parse_u64(eq + 1, &v) || v < 1 || v > (1ULL << 40))
			return die_usage("--sizes: bad size '%s'", eq + 1);
		cs->sizes[d] = (int64_t)v;
		seen[d] = 1;
	}
	for (int k = 0; k < s->ndims; k++)
		if (!seen[k])
			return die_usage("--sizes: missing a size for dim '%s'", s->dim[k]);
	return 0;
}

static int parse_params(struct sc_target *t, const char *arg, struct sc_case *cs)
{
	char buf[256];
	int have_dim = 0, have_concat = 0;
	snprintf(buf, sizeof buf, "%s", arg ? arg : "");
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		if (!eq)
			return die_usage("--params: expected KEY=VALUE, got '%s'", tok);
		*eq++ = '\0';
		enum sc_status ps = sc_target_param_set(t, cs, tok, eq);
		if (ps == SC_E_SPEC)
			return die_usage("--params: unknown op '%s'", eq);
		if (ps != SC_OK)
			return die_usage("--params: unknown key '%s' (dim, concat, op, ndims)", tok);
		have_dim |= strcmp(tok, "dim") == 0;
		have_concat |= strcmp(tok, "concat") == 0;
	}
	const int need_concat = sc_target_param_required(t, "concat");
	if (!have_dim || (need_concat && !have_concat))
		return die_usage("builtin targets need --params dim=I%s", need_concat ? ",concat=J" : "");
	return 0;
}

/* Rank's expected local tensor (for partial outputs: the whole X). */
static enum sc_status expected_tensor(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *cs,
				      const struct sc_layout *ol, int rank, struct sc_tensor *et,
				      struct sc_err *e)
{
	struct sc_layout l = *ol;
	if (l.kind == SC_PARTIAL)
		l.kind = SC_REPLICATE;
	struct sc_map m;
	sc_layout_map(&l, cs->sizes, cs->ndims, cs->world, rank, &m);
	const int use_dm = ctx->arena.use_dm; /* written here: host memory */
	ctx->arena.use_dm = 0;
	enum sc_status st = sc_tensor_empty(&ctx->arena, m.lshape, m.lndim, (unsigned)sc_dtype_size(cs->dtype), et, e);
	ctx->arena.use_dm = use_dm;
	SC_CHECK(st);
	struct sc_iter it;
	sc_iter_init(&it, m.shape, m.stride, m.ndim, m.offset);
	const unsigned es = et->buf->esize;
	for (int64_t k = 0; k < sc_tensor_numel(et); k++) {
		sc_store_bits(et->buf->data + (size_t)k * es, es, sc_verify_expected_bits(t, cs, (uint64_t)it.off));
		sc_iter_next(&it);
	}
	return SC_OK;
}

/* Writes DIR/rank<r>.{input,output,expected}.npy for one case (no output
 * file when a step fails at run time). Returns 0, or 2 on an error. */
static int dump_case(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *cs, const char *dir)
{
	struct sc_err e;
	int code = 0;
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(t, cs, s, &ns, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	if (s[0]->compute) {
		printf("(--dump writes the tensors of layout specs; this compute spec's worst element is above)\n");
		return 0;
	}
	if (sc_fs_mkdirs(dir, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	sc_ctx_begin(ctx, 0, 0);
	struct sc_tensor in[SC_MAX_WORLD];
	enum sc_status st = sc_verify_run(t, cs, &ctx->x, in, &e);
	struct sc_exec *x = &ctx->x;
	char path[4096];
	const struct sc_layout *ol = &s[ns - 1]->out;
	for (int rr = 0; rr < x->nlocal && code != 2; rr++) {
		const int rank = x->first + rr;
		snprintf(path, sizeof path, "%s/rank%d.input.npy", dir, rank);
		if (sc_npy_write(path, &in[rr], cs->dtype, &e) != SC_OK)
			code = 2;
		if (st == SC_OK) {
			snprintf(path, sizeof path, "%s/rank%d.output.npy", dir, rank);
			if (sc_npy_write(path, &x->t[rr], cs->dtype, &e) != SC_OK)
				code = 2;
		}
		struct sc_tensor et;
		if (expected_tensor(ctx, t, cs, ol, rank, &et, &e) != SC_OK) {
			code = 2;
			break;
		}
		snprintf(path, sizeof path, "%s/rank%d.expected.npy", dir, rank);
		if (sc_npy_write(path, &et, cs->dtype, &e) != SC_OK)
			code = 2;
	}
	if (code == 2)
		fprintf(stderr, "shardcheck: %s\n", e.msg);
	else
		printf("wrote %s/rank*.{input%s,expected}.npy for %d ranks\n", dir,
		       st == SC_OK ? ",output" : "", x->nlocal);
	return code;
}

static int cmd_eval(int argc, char **argv)
{
	static struct cli c;
	memset(&c, 0, sizeof c);
	c.backend = "sim";
	c.dtype = SC_I32;
	int rc = parse_args(&c, argc, argv, 1);
	if (rc)
		return rc < 0 ? 0 : rc;
	if ((c.ntargets != 1 && !c.chain) || (c.chain && c.ntargets))
		return die_usage("eval takes one target (a spec, builtin:NAME, or --chain A,B)%s", "");
	if (!c.world)
		return die_usage("eval needs --world P%s", "");
	if (!c.sizes)
		return die_usage("eval needs --sizes NAME=VALUE,...%s", "");
	static struct sc_target t;
	int nt = 0;
	if ((rc = load_targets(&c, &t, &nt, stderr)) != 0)
		return rc;
	struct sc_case cs;
	memset(&cs, 0, sizeof cs);
	cs.world = c.world;
	cs.dtype = c.dtype;
	cs.seed = c.co.seed;
	struct sc_err e;
	int nd_lo, nd_hi;
	if (sc_target_ndims_range(&t, &nd_lo, &nd_hi)) {
		if ((rc = parse_params(&t, c.params, &cs)) != 0)
			return rc;
		/* ndims from the number of sizes given */
		if (!cs.ndims) {
			cs.ndims = 1;
			for (const char *p = c.sizes; *p; p++)
				cs.ndims += *p == ',';
		}
	}
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(&t, &cs, s, &ns, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	cs.ndims = s[0]->ndims;
	if ((rc = parse_sizes(s[0], c.sizes, &cs)) != 0)
		return rc;
	struct sc_gen_opts go = {.world_lo = 1, .world_hi = SC_MAX_WORLD, .max_elems = INT64_MAX / 2};
	sc_gen_defaults(&go);
	char why[256];
	if (!sc_gen_valid(&t, &go, &cs, why, sizeof why)) {
		fprintf(stderr, "shardcheck: this case is not valid for %s: %s\n", t.name, why);
		return 2;
	}
	struct sc_backend *be;
	if (sc_backend_open(c.backend, &be, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	quiet_followers(be);
	if (cs.world > sc_backend_max_world(be)) {
		fprintf(stderr, "shardcheck: world %d needs %d processes, this launch has %d\n", cs.world,
			cs.world, sc_backend_max_world(be));
		sc_backend_close(be);
		return 2;
	}
	struct sc_ctx *ctx = sc_ctx_new(be, c.co.gen.dtypes);
	if (ctx)
		ctx->arena.max_bytes = c.case_memory;
	const struct sc_property *p = sc_property_find(c.property ? c.property : "semantics");
	struct sc_result r;
	memset(&r, 0, sizeof r);
	r.tgt = &t;
	r.property = p->name;
	r.cx = cs;
	snprintf(r.target, sizeof r.target, "%s", t.name);
	r.verdict = sc_check_case(ctx, &t, p, &cs, &r.fail);
	char desc[512];
	sc_target_case_format(&t, &cs, desc, sizeof desc);
	int code = 0;
	switch (r.verdict) {
	case SC_V_PASS: printf("pass  %s %s: %s\n", t.name, p->name, desc); break;
	case SC_V_SKIP: printf("skip  %s %s: not applicable\n", t.name, p->name); break;
	case SC_V_ERROR:
		fprintf(stderr, "shardcheck: %s\n", ctx->err.msg);
		code = 2;
		break;
	case SC_V_FAIL:
		printf("FAIL  %s %s\n", t.name, p->name);
		r.have_cx = 1;
		sc_report_failure_text(stdout, &r, "      ");
		code = 1;
		break;
	}
	if (c.dump && code != 2 && dump_case(ctx, &t, &cs, c.dump) != 0)
		code = 2;
	sc_ctx_free(ctx);
	sc_backend_close(be);
	sc_target_free(&t);
	return code;
}

static void short_value(enum sc_dtype dt, uint64_t bits, char *buf, size_t n)
{
	char full[96];
	sc_dtype_format(dt, bits, full, sizeof full);
	const char *paren = strchr(full, '(');
	if (paren) { /* floats: the value only */
		snprintf(buf, n, "%.*s", (int)(strcspn(paren + 1, ")")), paren + 1);
		return;
	}
	snprintf(buf, n, "%s", full);
}

/* Prints a tensor row by row (rows along the last dim); with ref, marks
 * the elements that differ with '!'. */
static void print_tensor(const char *title, const struct sc_tensor *t, const struct sc_tensor *ref,
			 enum sc_dtype dt)
{
	char sh[160];
	sc_shape_format(t->shape, t->ndim, sh, sizeof sh);
	printf("    %s %s:\n", title, sh);
	struct sc_iter it, ir;
	sc_iter_init(&it, t->shape, t->stride, t->ndim, t->offset);
	if (ref)
		sc_iter_init(&ir, ref->shape, ref->stride, ref->ndim, ref->offset);
	const int64_t n = sc_tensor_numel(t), row = t->ndim ? t->shape[t->ndim - 1] : 1;
	const unsigned es = t->buf->esize;
	for (int64_t k = 0; k < n; k++) {
		if (k % row == 0) {
			char idx[160];
			sc_shape_format(it.idx, t->ndim ? t->ndim - 1 : 0, idx, sizeof idx);
			printf("      %-14s", t->ndim > 1 ? idx : "");
		}
		uint64_t v = sc_load_bits(t->buf->data + (size_t)it.off * es, es);
		int differs = 0;
		if (ref) {
			differs = v != sc_load_bits(ref->buf->data + (size_t)ir.off * es, es);
			sc_iter_next(&ir);
		}
		char val[96];
		short_value(dt, v, val, sizeof val);
		printf(" %12s%s", val, differs ? "!" : " ");
		if (k % row == row - 1)
			printf("\n");
		sc_iter_next(&it);
	}
}

static int cmd_repro(int argc, char **argv)
{
	static struct cli c;
	memset(&c, 0, sizeof c);
	c.usage = usage_repro;
	int rc = parse_args(&c, argc, argv, 1);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (c.ntargets != 1)
		return die_usage("repro takes one .case file%s", "");
	static struct sc_target t;
	struct sc_err e;
	if (sc_casefile_load(c.targets[0], &t, &e) != SC_OK) {
		fprintf(stderr, "%s\n", e.msg);
		return 2;
	}
	const char *bname = c.backend ? c.backend : t.fixed_backend;
	struct sc_backend *be;
	if (sc_backend_open(bname, &be, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		sc_target_free(&t);
		return 2;
	}
	quiet_followers(be);
	if (t.fixed.world > sc_backend_max_world(be)) {
		fprintf(stderr, "shardcheck: world %d needs %d processes, this launch has %d\n",
			t.fixed.world, t.fixed.world, sc_backend_max_world(be));
		sc_backend_close(be);
		sc_target_free(&t);
		return 2;
	}
	struct sc_ctx *ctx = sc_ctx_new(be, 0);
	if (ctx)
		ctx->arena.max_bytes = c.case_memory;
	if (ctx && (t.ops->flags & SC_TARGET_HOST_ONLY))
		ctx->arena.shared = 1;
	const struct sc_property *p = sc_property_find(t.fixed_property);
	const struct sc_case *cs = &t.fixed;
	struct sc_result r;
	memset(&r, 0, sizeof r);
	r.tgt = &t;
	r.property = p->name;
	r.cx = *cs;
	snprintf(r.target, sizeof r.target, "%s", t.name);
	char desc[512];
	sc_target_case_format(&t, cs, desc, sizeof desc);
	printf("replay %s: %s %s on %s\n  %s\n", c.targets[0], t.name, p->name, bname, desc);
	r.verdict = sc_check_case(ctx, &t, p, cs, &r.fail);
	int code = r.verdict == SC_V_FAIL ? 1 : r.verdict == SC_V_ERROR ? 2 : 0;
	if (r.verdict == SC_V_ERROR)
		fprintf(stderr, "shardcheck: %s\n", ctx->err.msg);
	/* per rank, expected and actual: in full when small */
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns = 0;
	if (code != 2 && sc_target_specs(&t, cs, s, &ns, &e) == SC_OK) {
		sc_ctx_begin(ctx, 0, 0);
		enum sc_status st = sc_verify_run(&t, cs, &ctx->x, NULL, &e);
		struct sc_exec *x = &ctx->x;
		int64_t per_rank = sc_tensor_numel(&x->t[0]);
		if (st == SC_E_RUNTIME) {
			printf("  a step fails at run time: %s\n", e.msg);
		} else if (st == SC_OK && per_rank <= 256 && strcmp(p->name, "semantics") == 0 && !s[0]->compute) {
			const struct sc_layout *ol = &s[ns - 1]->out;
			for (int rr = 0; rr < x->nlocal; rr++) {
				struct sc_tensor et;
				if (expected_tensor(ctx, &t, cs, ol, x->first + rr, &et, &e) != SC_OK)
					break;
				printf("  rank %d:\n", x->first + rr);
				print_tensor("expected", &et, NULL, cs->dtype);
				int same_shape = et.ndim == x->t[rr].ndim;
				for (int d = 0; same_shape && d < et.ndim; d++)
					same_shape = et.shape[d] == x->t[rr].shape[d];
				struct sc_tensor at = x->t[rr];
				struct sc_buf hb = *at.buf;
				if (at.buf->dm) { /* a device buffer: print its bits from here */
					if (!(hb.data = (unsigned char *)sc_tensor_host(&ctx->arena, &at)))
						break;
					hb.dm = NULL;
					at.buf = &hb;
				}
				print_tensor(ol->kind == SC_PARTIAL ? "actual (this rank's partial)" : "actual",
					     &at, same_shape && ol->kind != SC_PARTIAL ? &et : NULL, cs->dtype);
			}
		}
	}
	if (r.verdict == SC_V_FAIL) {
		printf("FAIL  %s %s: the case still fails\n", t.name, p->name);
		r.have_cx = 1;
		snprintf(r.case_file, sizeof r.case_file, "%.590s", c.targets[0]);
		sc_report_failure_text(stdout, &r, "      ");
	} else if (r.verdict == SC_V_PASS) {
		printf("pass  %s %s: the case no longer fails%s\n", t.name, p->name,
		       t.expect == 1 ? " (the case file expects a failure)" : "");
	}
	if (c.dump && code != 2 && dump_case(ctx, &t, cs, c.dump) != 0)
		code = 2;
	sc_ctx_free(ctx);
	sc_backend_close(be);
	sc_target_free(&t);
	return code;
}

/* ---- shardcheck fuzz ---- */

static volatile sig_atomic_t fuzz_stop;
static void fuzz_stop_handler(int sig)
{
	(void)sig;
	fuzz_stop = 1;
}

struct fuzz_print {
	int job, jobs, quiet;
};

static void fmt_dur(double s, char *buf, size_t n)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%lds", t);
}

static void fuzz_event(void *u, const struct sc_fuzz_event *ev)
{
	const struct fuzz_print *fp = u;
	char pre[24] = "";
	if (fp->jobs > 1)
		snprintf(pre, sizeof pre, "[job %d] ", fp->job);
	char a[32], b[32];
	switch (ev->kind) {
	case SC_FZ_PROGRESS:
		fmt_dur(ev->elapsed, a, sizeof a);
		fmt_dur(ev->left > 0 ? ev->left : 0, b, sizeof b);
		printf("%sfuzz: %s elapsed, %s left: %ld cases (%.0f/s), %ld failure%s\n", pre, a, b, ev->cases,
		       ev->elapsed > 0 ? ev->cases / ev->elapsed : 0.0, ev->failures, ev->failures == 1 ? "" : "s");
		break;
	case SC_FZ_NEW:
		printf("%sNEW   %s %s: saved %s\n", pre, ev->res->target, ev->res->property, ev->case_file);
		sc_report_failure_text(stdout, ev->res, "      ");
		break;
	case SC_FZ_EXPECTED:
		if (!fp->quiet) {
			char cs[256];
			sc_target_case_format(ev->res->tgt, &ev->res->cx, cs, sizeof cs);
			printf("%sknown %s %s (expect fail): %s\n", pre, ev->res->target, ev->res->property, cs);
		}
		break;
	case SC_FZ_STILL:
		printf("%sSTILL %s: %s %s still fails\n", pre, ev->case_file, ev->res->tgt->name, ev->res->property);
		break;
	case SC_FZ_FIXED:
		printf("%sFIXED %s: %s %s passes now\n", pre, ev->case_file, ev->res->tgt->name, ev->res->property);
		break;
	case SC_FZ_ERROR:
		printf("%sERROR %s %s: %s\n", pre, ev->res->target, ev->res->property, ev->res->error);
		break;
	}
	fflush(stdout); /* a run killed at any point keeps what it printed */
}

static int cmd_fuzz(int argc, char **argv, int full_argc, char **full_argv)
{
	static struct cli c;
	memset(&c, 0, sizeof c);
	c.backend = "sim";
	c.usage = usage_fuzz;
	int rc = parse_args(&c, argc, argv, 0);
	if (rc)
		return rc < 0 ? 0 : rc;
	sc_gen_defaults(&c.co.gen);
	if (!c.seed_given)
		c.co.seed = random_seed();
	const double total = c.total > 0 ? c.total : 60;
	const int jobs = c.jobs > 0 ? c.jobs : 1;
	const char *corpus = c.corpus ? c.corpus : "corpus";
	const char *report = c.report_dir ? c.report_dir : "reports/fuzz";
	if (jobs > 1 && strcmp(c.backend, "sim") != 0)
		return die_usage("--jobs needs the sim backend (launch more processes with mpirun instead)%s", "");
	struct stat st;
	if (c.ntargets == 0) {
		c.targets[c.ntargets++] = "builtin:all";
		if (stat(corpus, &st) == 0)
			c.targets[c.ntargets++] = corpus;
	}
	char findings[1100];
	snprintf(findings, sizeof findings, "%s/findings", corpus);
	struct sc_err e;
	struct sc_backend *be = NULL;
	if (sc_backend_open(c.backend, &be, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	quiet_followers(be);
	sc_backend_bcast(be, &c.co.seed, sizeof c.co.seed, 0);
	if (c.co.gen.world_hi > sc_backend_max_world(be))
		c.co.gen.world_hi = sc_backend_max_world(be);
	static struct sc_target all[MAX_TARGETS], targets[MAX_TARGETS];
	int na = 0, nt = 0;
	if ((rc = load_targets(&c, all, &na, stderr)) != 0) {
		fprintf(stderr, "shardcheck: nothing run\n");
		sc_backend_close(be);
		return rc;
	}
	for (int i = 0; i < na; i++) { /* .case files are findings or regressions, not fuzzable */
		if (all[i].has_case)
			sc_target_free(&all[i]);
		else
			targets[nt++] = all[i];
	}
	if (sc_fs_mkdirs(report, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		sc_backend_close(be);
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fuzz_stop_handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	char dur[32];
	fmt_dur(total, dur, sizeof dur);
	printf("shardcheck %s fuzz: seed %llu, backend %s, %d targets, %s, %d job%s, report %s, findings %s\n",
	       SC_VERSION, (unsigned long long)c.co.seed, c.backend, nt, dur, jobs, jobs == 1 ? "" : "s",
	       report, findings);
	fflush(stdout);
	const int cap = nt * 8 + 1100;
	struct sc_result *res = calloc((size_t)cap, sizeof *res);
	struct sc_ctx *ctx = sc_ctx_new(be, c.co.gen.dtypes);
	if (ctx)
		ctx->arena.max_bytes = c.case_memory;
	if (!res || !ctx) {
		fprintf(stderr, "shardcheck: out of memory\n");
		return 2;
	}
	struct fuzz_print fp = {0, jobs, c.quiet};
	struct sc_fuzz_opts fo = {.co = c.co, .seconds = total, .backend = c.backend, .report_dir = report,
				  .findings_dir = findings, .stop = &fuzz_stop, .event = fuzz_event, .u = &fp};
	int nres = 0;
	if (jobs == 1) {
		if (sc_fuzz_campaign(ctx, targets, nt, &fo, res, cap, &nres, &e) != SC_OK) {
			fprintf(stderr, "shardcheck: %s\n", e.msg);
			return 2;
		}
	} else {
		/* findings replayed here; workers fuzz on seeds seed+1..seed+N and
		 * leave their per-pair results in REPORT/.jobK.res */
		struct sc_fuzz_opts r0 = fo;
		r0.seconds = 0;
		int nrep = 0;
		sc_fuzz_campaign(ctx, targets, nt, &r0, res, cap, &nrep, &e);
		pid_t pids[256];
		for (int j = 0; j < jobs; j++) {
			pids[j] = fork();
			if (pids[j] == 0) {
				/* a worker stops (cleanly) when the parent dies, even by kill -9 */
				prctl(PR_SET_PDEATHSIG, SIGTERM);
				if (getppid() == 1)
					_exit(0);
				struct sc_fuzz_opts wo = fo;
				struct fuzz_print wp = {j + 1, jobs, c.quiet};
				wo.u = &wp;
				wo.no_replay = 1;
				wo.co.seed = c.co.seed + (uint64_t)j + 1;
				struct sc_result *wr = calloc((size_t)cap, sizeof *wr);
				int nw = 0;
				if (!wr || sc_fuzz_campaign(ctx, targets, nt, &wo, wr, cap, &nw, &e) != SC_OK)
					_exit(2);
				char path[1200];
				snprintf(path, sizeof path, "%s/.job%d.res", report, j + 1);
				sc_fs_write_atomic(path, wr, sizeof *wr * (size_t)nw, &e);
				_exit(0);
			}
		}
		for (int j = 0; j < jobs; j++) {
			int status;
			while (waitpid(pids[j], &status, 0) < 0 && errno == EINTR)
				if (fuzz_stop)
					for (int k = 0; k < jobs; k++)
						kill(pids[k], SIGTERM);
		}
		/* merge: pairs are in the same order in every worker (same targets) */
		int npairs = 0;
		for (int i = 0; i < nrep; i++)
			if (!res[i].tgt || !res[i].tgt->has_case)
				npairs = i + 1;
		for (int j = 0; j < jobs; j++) {
			char path[1200];
			snprintf(path, sizeof path, "%s/.job%d.res", report, j + 1);
			FILE *f = fopen(path, "rb");
			if (!f)
				continue;
			struct sc_result w;
			for (int i = 0; i < npairs && fread(&w, sizeof w, 1, f) == 1; i++) {
				struct sc_result *acc = &res[i];
				acc->cases += w.cases;
				if (w.seconds > acc->seconds)
					acc->seconds = w.seconds;
				if (w.verdict == SC_V_ERROR || (w.verdict == SC_V_FAIL && acc->verdict != SC_V_FAIL &&
								acc->verdict != SC_V_ERROR)) {
					long cs = acc->cases;
					double sec = acc->seconds;
					*acc = w;
					acc->cases = cs;
					acc->seconds = sec;
				} else if (w.verdict == SC_V_PASS && acc->verdict == SC_V_SKIP) {
					acc->verdict = SC_V_PASS;
				}
			}
			fclose(f);
			remove(path);
		}
		nres = nrep;
	}
	/* replayed findings own their targets: remember them before compacting */
	struct sc_target **owned = calloc((size_t)nres + 1, sizeof *owned);
	int nowned = 0;
	for (int i = 0; owned && i < nres; i++)
		if (res[i].tgt && res[i].tgt->has_case)
			owned[nowned++] = res[i].tgt;
	/* the report: pairs never run (no time) are left out */
	int n = 0, newf = 0, still = 0, fixed = 0, expected = 0, errors = 0;
	long cases = 0;
	for (int i = 0; i < nres; i++) {
		struct sc_result *r = &res[i];
		if (r->verdict == SC_V_SKIP && r->cases == 0)
			continue;
		cases += r->cases;
		if (r->tgt->has_case) {
			still += r->verdict == SC_V_FAIL;
			fixed += r->verdict == SC_V_PASS;
		} else if (r->verdict == SC_V_FAIL) {
			if (r->tgt->expect == 1 && r->tgt->corpus)
				expected++;
			else
				newf++;
		}
		errors += r->verdict == SC_V_ERROR;
		if (n != i)
			res[n] = *r;
		n++;
	}
	struct sc_report_meta meta = {SC_VERSION, c.co.seed, c.backend, full_argc, full_argv};
	int code = errors ? 2 : (newf || still) ? 1 : 0;
	if (sc_backend_leader(be)) {
		if (sc_report_write(report, &meta, res, n, &e) != SC_OK) {
			fprintf(stderr, "shardcheck: %s\n", e.msg);
			code = 2;
		}
		printf("fuzz %s: %ld cases; %d new failure%s, %d earlier still failing, %d fixed, %d expected, %d error%s; report %s\n",
		       fuzz_stop ? "stopped" : "done", cases, newf, newf == 1 ? "" : "s", still, fixed, expected,
		       errors, errors == 1 ? "" : "s", report);
	}
	for (int i = 0; i < nowned; i++) {
		sc_target_free(owned[i]);
		free(owned[i]);
	}
	free(owned);
	free(res);
	sc_ctx_free(ctx);
	sc_backend_close(be);
	for (int i = 0; i < nt; i++)
		sc_target_free(&targets[i]);
	return code;
}

static int cmd_list(void)
{
	printf("builtins:\n");
	const struct sc_builtin_family *const *fams;
	const int nf = sc_builtin_families(&fams);
	for (int b = 0; b < nf; b++)
		printf("  builtin:%s\n", fams[b]->name);
	printf("  builtin:all\n\nproperties:\n");
	const struct sc_property *const *props;
	int np = sc_properties(&props);
	for (int i = 0; i < np; i++)
		printf("  %-20s %s\n", props[i]->name, props[i]->doc);
	printf("\ndtypes:\n ");
	for (int d = 0; d < SC_NDTYPES; d++)
		printf(" %s", sc_dtype_name((enum sc_dtype)d));
	printf("\n\nbackends:\n");
	const struct sc_backend_info *bl;
	int nb = sc_backend_list(&bl);
	for (int i = 0; i < nb; i++)
		printf("  %-6s %-12s %s\n", bl[i].name, bl[i].available ? "available" : "unavailable",
		       bl[i].note);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_main, stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("shardcheck %s\n", SC_VERSION);
		return 0;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (strcmp(cmd, "help") == 0) {
		const char *w = argc > 2 ? argv[2] : "";
		fputs(strcmp(w, "check") == 0   ? usage_check
	      : strcmp(w, "eval") == 0  ? usage_eval
	      : strcmp(w, "repro") == 0 ? usage_repro
	      : strcmp(w, "fuzz") == 0  ? usage_fuzz
	      : strcmp(w, "gate") == 0  ? usage_gate
					: usage_main,
		      stdout);
		return 0;
	}
	if (strcmp(cmd, "check") == 0)
		return cmd_check(argc - 2, argv + 2, argc, argv, 0);
	if (strcmp(cmd, "gate") == 0)
		return cmd_check(argc - 2, argv + 2, argc, argv, 1);
	if (strcmp(cmd, "eval") == 0)
		return cmd_eval(argc - 2, argv + 2);
	if (strcmp(cmd, "list") == 0)
		return cmd_list();
	if (strcmp(cmd, "repro") == 0)
		return cmd_repro(argc - 2, argv + 2);
	if (strcmp(cmd, "fuzz") == 0)
		return cmd_fuzz(argc - 2, argv + 2, argc, argv);
	fprintf(stderr, "shardcheck: unknown command '%s'\n\n%s", cmd, usage_main);
	return 2;
}
