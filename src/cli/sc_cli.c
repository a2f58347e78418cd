/* sc_cli: options from the flag table, help, targets, progress, the case
 * in flight, seeds. */
#include "sc_cli.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sc_suggest.h"
#include "sc_builtin.h"
#include "sc_casefile.h"
#include "sc_reference.h"
#include "sc_fs.h"
#include "sc_npy.h"
#include "sc_plugin.h"
#include "sc_sanitize.h"
#include "sc_sandbox.h"
#include "sc_torch.h"

int sc_cli_die(const char *fmt, const char *arg)
{
	fprintf(stderr, "shardcheck: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see shardcheck help)\n");
	return 2;
}

int sc_cli_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	/* digits only: strtoull takes " -1" (blanks, then a sign) as 2^64 - 1 */
	if (!isdigit((unsigned char)*s))
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* "--dtype: unknown dtype 'bf61' (did you mean 'bf16'?) (see shardcheck
 * list)" as an exit code. */
static int unknown_dtype(const char *flag, const char *word)
{
	struct sc_suggest s;
	sc_suggest_init(&s, word);
	for (int k = 0; k < SC_NDTYPES; k++)
		sc_suggest_add(&s, sc_dtype_name((enum sc_dtype)k));
	char hint[96], msg[256];
	snprintf(msg, sizeof msg, "%s: unknown dtype '%.60s'%s (see shardcheck list)", flag, word,
		 sc_suggest_hint(&s, hint, sizeof hint));
	return sc_cli_die("%s", msg);
}

/* 0, or the exit code of a message naming the first unknown dtype. */
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
		if (sc_dtype_parse(tok, &dt) != SC_OK)
			return unknown_dtype("--dtypes", tok);
		*mask |= 1u << dt;
	}
	return *mask ? 0 : sc_cli_die("--dtypes needs a comma-separated list of dtypes, got '%s'", s);
}

static int one_case(const struct sc_cli *c) { return (c->cmd->bit & (SC_EVAL | SC_REPRO)) != 0; }

/* ---- one handler per row of sc_flags.def: 0, -1 (help printed) or an exit code ---- */

static int set_backend(struct sc_cli *c, const char *val) { c->backend = val; return 0; }
static int set_corpus(struct sc_cli *c, const char *val) { c->corpus = val; return 0; }
static int set_findings(struct sc_cli *c, const char *val) { c->findings = val; return 0; }
static int set_plugin(struct sc_cli *c, const char *val) { c->plugin = val; return 0; }
static int set_baseline(struct sc_cli *c, const char *val) { c->baseline = val; return 0; }
static int set_report(struct sc_cli *c, const char *val) { c->report_dir = val; return 0; }
static int set_json(struct sc_cli *c, const char *val) { c->json = val; return 0; }
static int set_chain(struct sc_cli *c, const char *val) { c->chain = val; return 0; }
static int set_sizes(struct sc_cli *c, const char *val) { c->sizes = val; return 0; }
static int set_params(struct sc_cli *c, const char *val) { c->params = val; return 0; }
static int set_dump(struct sc_cli *c, const char *val) { c->dump = val; return 0; }

static int set_svg(struct sc_cli *c, const char *val)
{
	if (!(c->cmd->bit & SC_REPRO))
		return sc_cli_die("--svg is an option of repro (%s)", "shardcheck repro CASE --svg FILE");
	c->svg = val;
	return 0;
}

static int set_no_shrink(struct sc_cli *c, const char *val)
{
	(void)val;
	c->co.no_shrink = 1;
	return 0;
}

static int set_exhaustive(struct sc_cli *c, const char *val)
{
	(void)val;
	c->co.exhaustive = 1;
	return 0;
}

static int set_max_dim(struct sc_cli *c, const char *val)
{
	uint64_t u;
	if (sc_cli_u64(val, &u) || u < 1 || u > 4096)
		return sc_cli_die("--max-dim needs a size 1..4096, got '%s'", val);
	c->co.max_dim = (int)u;
	return 0;
}

static int set_no_expect(struct sc_cli *c, const char *val)
{
	(void)val;
	c->no_expect = 1;
	return 0;
}

static int set_sanitize(struct sc_cli *c, const char *val)
{
	if (!sc_sanitize_tool_known(val)) {
		const char *const *tools;
		const int n = sc_sanitize_tools(&tools);
		struct sc_suggest s;
		char hint[96], msg[256];
		sc_suggest_init(&s, val);
		for (int i = 0; i < n; i++)
			sc_suggest_add(&s, tools[i]);
		snprintf(msg, sizeof msg, "--sanitize: unknown tool '%.64s'%s (memcheck, racecheck, initcheck, synccheck)",
			 val, sc_suggest_hint(&s, hint, sizeof hint));
		return sc_cli_die("%s", msg);
	}
	c->sanitize = val;
	return 0;
}

static int set_sanitize_all(struct sc_cli *c, const char *val)
{
	(void)val;
	c->sanitize_all = 1;
	return 0;
}

static int set_allow_fewer_ranks(struct sc_cli *c, const char *val)
{
	(void)val;
	c->allow_fewer_ranks = 1;
	return 0;
}

static int set_quiet(struct sc_cli *c, const char *val)
{
	(void)val;
	c->quiet = 1;
	return 0;
}

static int set_verbose(struct sc_cli *c, const char *val)
{
	(void)val;
	c->verbose = 1;
	sc_log_enable(SC_LOG_BACKEND | SC_LOG_PLUGIN | SC_LOG_FUZZ);
	return 0;
}

static int set_help(struct sc_cli *c, const char *val)
{
	(void)val;
	sc_cli_usage(stdout, c->cmd);
	return -1;
}

/* Seconds in (0, max], with an s, m or h suffix when units: a finite
 * decimal number (NaN, infinities, hex, blanks, signs and what overflows
 * are refused: strtod takes them all, and NaN passes every comparison).
 * 0, or -1 when val is not one. */
static int parse_seconds(const char *val, int units, double max, double *out)
{
	char *end;
	if (!isdigit((unsigned char)val[0]) && !(val[0] == '.' && isdigit((unsigned char)val[1])))
		return -1;
	if (val[0] == '0' && (val[1] == 'x' || val[1] == 'X'))
		return -1;
	errno = 0;
	const double v = strtod(val, &end);
	double mult = 1;
	if (units && *end && !end[1])
		mult = *end == 'h' ? 3600 : *end == 'm' ? 60 : *end == 's' ? 1 : -1;
	else if (*end)
		mult = -1;
	const double s = v * mult;
	if (errno || mult < 0 || !isfinite(s) || !(s > 0) || s > max)
		return -1;
	*out = s;
	return 0;
}

static int set_timeout(struct sc_cli *c, const char *val)
{
	double s;
	if (parse_seconds(val, 0, 86400, &s))
		return sc_cli_die("--timeout needs seconds in (0, 86400], got '%s'", val);
	c->timeout = s;
	return 0;
}

static int set_jobs(struct sc_cli *c, const char *val)
{
	uint64_t u;
	if (sc_cli_u64(val, &u) || u < 1 || u > 256)
		return sc_cli_die("--jobs needs 1..256, got '%s'", val);
	c->jobs = (int)u;
	return 0;
}

static int set_cases(struct sc_cli *c, const char *val)
{
	uint64_t u;
	if (sc_cli_u64(val, &u) || u == 0 || u > (uint64_t)LONG_MAX)
		return sc_cli_die("--cases needs a positive integer up to 2^63 - 1, got '%s'", val);
	c->co.cases = (long)u;
	return 0;
}

/* A year: beyond it a deadline is no bound, and durations are printed as
 * whole seconds in a long. */
#define SC_CLI_MAX_TIME (8760.0 * 3600)

static int set_time(struct sc_cli *c, const char *val)
{
	double s;
	if (parse_seconds(val, 1, SC_CLI_MAX_TIME, &s))
		return sc_cli_die("--time needs a duration (90, 90s, 30m, 8h) greater than 0 and at most 8760h, got '%s'",
				  val);
	c->co.seconds = s;
	c->total = s;
	return 0;
}

static int set_seed(struct sc_cli *c, const char *val)
{
	uint64_t u;
	if (strcmp(val, "random") == 0) {
		c->seed_random = 1;
		return 0;
	}
	if (sc_cli_u64(val, &u))
		return sc_cli_die("--seed needs a non-negative integer, got '%s'", val);
	c->co.seed = u;
	c->seed_given = 1;
	return 0;
}

static int set_world(struct sc_cli *c, const char *val)
{
	uint64_t u;
	long lo, hi;
	char tail;
	if (one_case(c)) {
		if (sc_cli_u64(val, &u) || u < 1 || u > SC_MAX_WORLD)
			return sc_cli_die("--world needs a world size 1..256, got '%s'", val);
		c->world = (int)u;
		return 0;
	}
	if (strchr(val, ',')) { /* a list: 2,4,8 */
		struct sc_gen_opts g = {0};
		const char *p = val;
		for (;;) {
			char *end;
			const long w = strtol(p, &end, 10);
			if (end == p || w < 1 || w > SC_MAX_WORLD || (*end && *end != ','))
				return sc_cli_die("--world needs LO..HI, P or a list P1,P2,... of world sizes 1..256, got '%s'",
						  val);
			sc_gen_world_add(&g, (int)w);
			if (!*end)
				break;
			p = end + 1;
		}
		memcpy(c->co.gen.world_set, g.world_set, sizeof g.world_set);
		c->co.gen.world_lo = g.world_lo;
		c->co.gen.world_hi = g.world_hi;
		return 0;
	}
	if (sscanf(val, "%ld..%ld%c", &lo, &hi, &tail) == 2) {
	} else if (sscanf(val, "%ld%c", &lo, &tail) == 1) {
		hi = lo;
	} else {
		return sc_cli_die("--world needs LO..HI, P or a list P1,P2,..., got '%s'", val);
	}
	if (lo < 1 || hi > SC_MAX_WORLD)
		return sc_cli_die("--world range must be within 1..256, got '%s'", val);
	if (hi < lo)
		return sc_cli_die("--world LO..HI needs LO <= HI, got '%s' (an empty range)", val);
	memset(c->co.gen.world_set, 0, sizeof c->co.gen.world_set);
	c->co.gen.world_lo = (int)lo;
	c->co.gen.world_hi = (int)hi;
	return 0;
}

static int set_dtypes(struct sc_cli *c, const char *val)
{
	return parse_dtypes(val, &c->co.gen.dtypes);
}

static int set_dtype(struct sc_cli *c, const char *val)
{
	if (sc_dtype_parse(val, &c->dtype) != SC_OK)
		return unknown_dtype("--dtype", val);
	return 0;
}

static int set_case_memory(struct sc_cli *c, const char *val)
{
	uint64_t u;
	if (sc_cli_u64(val, &u) || u == 0 || u > ((uint64_t)1 << 30))
		return sc_cli_die("--case-memory needs MiB in 1..2^30, got '%s'", val);
	c->case_memory = (size_t)u << 20;
	return 0;
}

static int set_torch(struct sc_cli *c, const char *val)
{
	char why[160];
	return sc_torch_parse(val, &c->torch, why, sizeof why) != 0 ? sc_cli_die("--torch: %s", why) : 0;
}

/* SIZE: bytes with an optional K, M, G or T suffix (powers of 1024). */
static int set_plugin_memory(struct sc_cli *c, const char *val)
{
	static const char units[] = "KMGT";
	char *end;
	errno = 0;
	const unsigned long long u = strtoull(val, &end, 10);
	const char *unit = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
	const unsigned shift = unit ? 10u * (unsigned)(unit - units + 1) : 0;
	if (unit)
		end++;
	if (errno || end == val || *end || !isdigit((unsigned char)val[0]) || u > (~0ULL >> shift))
		return sc_cli_die("--plugin-memory needs a size such as 512M, 8G or 0 (no limit), got '%s'", val);
	c->plugin_memory = (size_t)(u << shift);
	c->plugin_memory_set = 1;
	return 0;
}

static int set_max_elems(struct sc_cli *c, const char *val)
{
	uint64_t u;
	if (sc_cli_u64(val, &u) || u == 0 || u > (uint64_t)INT64_MAX)
		return sc_cli_die("--max-elems needs a positive integer up to 2^63 - 1, got '%s'", val);
	c->co.gen.max_elems = (int64_t)u;
	return 0;
}

static int set_property(struct sc_cli *c, const char *val)
{
	if (!sc_property_find(val)) {
		const struct sc_property *const *props;
		const int np = sc_properties(&props);
		struct sc_suggest s;
		sc_suggest_init(&s, val);
		for (int k = 0; k < np; k++)
			sc_suggest_add(&s, props[k]->name);
		char hint[96], msg[256];
		snprintf(msg, sizeof msg, "unknown property '%.100s'%s (see shardcheck list)", val,
			 sc_suggest_hint(&s, hint, sizeof hint));
		return sc_cli_die("%s", msg);
	}
	c->property = val;
	return 0;
}

static int set_log(struct sc_cli *c, const char *val)
{
	(void)c;
	unsigned mask;
	int bad;
	if (sc_log_parse(val, &mask, &bad) != 0)
		return sc_cli_die("--log: unknown subsystem in '%s' (spec, interp, gen, shrink, backend, plugin, fuzz, check, report, trace, all)",
				  val);
	sc_log_enable(mask);
	return 0;
}

/* ---- the table ---- */

struct flag {
	const char *name, *metavar;
	int scope, show;
	const char *help;
	int (*set)(struct sc_cli *c, const char *val);
};

static const struct flag flags[] = {
#define SC_FLAG(ID, NAME, METAVAR, SCOPE, SHOW, HELP) {NAME, METAVAR, SCOPE, SHOW, HELP, set_##ID},
#include "sc_flags.def"
#undef SC_FLAG
};
#define NFLAGS ((int)(sizeof flags / sizeof flags[0]))

static const struct flag *find_flag(const struct sc_cli *c, const char *name)
{
	for (int k = 0; k < NFLAGS; k++)
		if (strcmp(flags[k].name, name) == 0)
			return flags[k].scope == SC_ONE_CASE && !one_case(c) ? NULL : &flags[k];
	return NULL;
}

/* " (did you mean '--world'?)" for an unknown option: the closest that
 * this command shows in its help. */
static const char *option_hint(const struct sc_cli *c, const char *name, char *buf, size_t n)
{
	struct sc_suggest s;
	sc_suggest_init(&s, name);
	for (int k = 0; k < NFLAGS; k++)
		if (!c->cmd || (flags[k].show & c->cmd->bit))
			sc_suggest_add(&s, flags[k].name);
	return sc_suggest_hint(&s, buf, n);
}

static int unknown_option(const struct sc_cli *c, const char *name)
{
	char hint[96], msg[256];
	snprintf(msg, sizeof msg, "unknown option '%.100s'%s", name, option_hint(c, name, hint, sizeof hint));
	return sc_cli_die("%s", msg);
}

void sc_cli_usage(FILE *out, const struct sc_cmd *cmd)
{
	fputs(cmd->head, out);
	for (int k = 0; k < NFLAGS; k++) {
		if (!(flags[k].show & cmd->bit))
			continue;
		char left[64];
		snprintf(left, sizeof left, "%s%s%s", flags[k].name, flags[k].metavar ? " " : "",
			 flags[k].metavar ? flags[k].metavar : "");
		const char *h = flags[k].help;
		if (strlen(left) > 19)
			fprintf(out, "  %s\n  %-19s ", left, "");
		else
			fprintf(out, "  %-19s ", left);
		for (; *h; h++) {
			fputc(*h, out);
			if (*h == '\n')
				fprintf(out, "  %-19s ", "");
		}
		fputc('\n', out);
	}
	fputs(cmd->foot, out);
}

/* A "--key[=value]" argument: its flag's handler with the value (the next
 * argument when there is no '='). *i advances past what was used. */
static int long_option(struct sc_cli *c, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *eq = strchr(a, '=');
	char key[64];
	size_t kl = eq ? (size_t)(eq - a) : strlen(a);
	if (kl >= sizeof key)
		kl = sizeof key - 1;
	memcpy(key, a, kl);
	key[kl] = '\0';
	const struct flag *f = find_flag(c, key);
	const char *val = NULL;
	if (!f || f->metavar) { /* unknown options take a value too, as they always have */
		if (eq)
			val = eq + 1;
		else if (*i + 1 < argc)
			val = argv[++*i];
		else
			return sc_cli_die("option %s needs a value", key);
	}
	if (!f)
		return unknown_option(c, key);
	return f->set(c, val);
}

int sc_cli_parse(struct sc_cli *c, const struct sc_cmd *cmd, int argc, char **argv)
{
	memset(c, 0, sizeof *c);
	c->cmd = cmd;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int rc = 0;
		const struct flag *f;
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			rc = long_option(c, argc, argv, &i);
		} else if (strcmp(a, "-h") == 0) {
			rc = set_help(c, NULL);
		} else if (a[0] == '-' && a[1] && (f = find_flag(c, a)) != NULL) {
			rc = f->set(c, NULL);
		} else if (a[0] == '-' && a[1]) {
			rc = unknown_option(c, a);
		} else if (c->ntargets >= SC_CLI_MAX_TARGETS) {
			rc = sc_cli_die("too many targets (at most %s)", "1024");
		} else {
			c->targets[c->ntargets++] = a;
		}
		if (rc)
			return rc;
	}
	/* plugins' children, wherever a plugin comes from (gate, a .case) */
	const struct sc_plugin_limits pl = {c->timeout > 0 ? c->timeout : 10,
					    c->plugin_memory_set ? c->plugin_memory : sc_sandbox_default_memory()};
	sc_plugin_set_limits(&pl);
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

/* "unknown builtin 'builtin:all_gathr' (did you mean 'builtin:all_gather'?)"
 * as an exit code. */
static int unknown_builtin(const char *a)
{
	const struct sc_builtin_family *const *fams;
	const int nf = sc_builtin_families(&fams);
	struct sc_suggest s;
	sc_suggest_init(&s, a + 8);
	for (int k = 0; k < nf; k++)
		sc_suggest_add(&s, fams[k]->name);
	char msg[300], hint[96] = "";
	if (s.best)
		snprintf(hint, sizeof hint, " (did you mean 'builtin:%s'?)", s.best);
	snprintf(msg, sizeof msg, "unknown builtin '%.100s'%s (see shardcheck list)", a, hint);
	return sc_cli_die("%s", msg);
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
		} else if (ends_with(names[i], ".sc") || ends_with(names[i], ".case")) {
			if (*n < max)
				out[*n] = names[i];
			else
				free(names[i]);
			(*n)++; /* counted past max: the caller says so */
		} else {
			free(names[i]);
		}
	}
	return 0;
}

int sc_cli_load_targets(struct sc_cli *c, struct sc_target *t, int *nt, FILE *log)
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
				return sc_cli_die("--chain takes at most %s specs", "8");
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
				for (int k = 0; k < nf && n < SC_CLI_MAX_TARGETS; k++)
					sc_target_builtin(&t[n++], fams[k], &e);
				continue;
			}
			if (sc_builtin_find(a + 8, &fam) != SC_OK) {
				*nt = n;
				return unknown_builtin(a);
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
		char *files[SC_CLI_MAX_TARGETS];
		int nf = 0;
		if (S_ISDIR(st.st_mode)) {
			collect_dir(a, files, &nf, SC_CLI_MAX_TARGETS);
			if (nf > SC_CLI_MAX_TARGETS) {
				for (int k = 0; k < SC_CLI_MAX_TARGETS; k++)
					free(files[k]);
				fprintf(log, "shardcheck: %s: %d specs and case files; one run takes at most %d (split the run)\n",
					a, nf, SC_CLI_MAX_TARGETS);
				*nt = n;
				return 2;
			}
			if (nf == 0)
				fprintf(log, "shardcheck: %s: no .sc specs or .case files found\n", a);
		} else {
			files[nf++] = strdup(a);
		}
		int bad = 0;
		for (int k = 0; k < nf; k++) {
			if (c->specs_only && S_ISDIR(st.st_mode) && ends_with(files[k], ".case")) {
				free(files[k]);
				continue;
			}
			struct stat fst;
			if (c->skip_irregular && S_ISDIR(st.st_mode) && stat(files[k], &fst) == 0 && !S_ISREG(fst.st_mode)) {
				char why[SC_ERR_MAX];
				snprintf(why, sizeof why, "%.400s: not a regular file (%s); skipped", files[k],
					 sc_fs_kind(fst.st_mode));
				fprintf(log, "shardcheck: %s\n", why);
				if (c->nskipped < SC_CLI_MAX_BROKEN) {
					snprintf(c->skipped[c->nskipped].path, sizeof c->skipped[0].path, "%s", files[k]);
					snprintf(c->skipped[c->nskipped].msg, sizeof c->skipped[0].msg, "%s", why);
				}
				c->nskipped++;
				free(files[k]);
				continue;
			}
			if (n >= SC_CLI_MAX_TARGETS && !bad) {
				fprintf(log, "shardcheck: more than %d targets in one run (split the run)\n", SC_CLI_MAX_TARGETS);
				bad = 1;
			}
			if (n >= SC_CLI_MAX_TARGETS) {
				free(files[k]);
				continue;
			}
			enum sc_status ls = SC_OK;
			if (!bad)
				ls = ends_with(files[k], ".case") ? sc_casefile_load(files[k], &t[n], &e)
								  : sc_target_from_spec_file(&t[n], files[k], &e);
			if (!bad && ls != SC_OK && S_ISDIR(st.st_mode)) {
				if (c->nbroken >= SC_CLI_MAX_BROKEN) {
					fprintf(log, "%s\n", e.msg);
				} else {
					snprintf(c->broken[c->nbroken].path, sizeof c->broken[0].path, "%s", files[k]);
					snprintf(c->broken[c->nbroken].msg, sizeof c->broken[0].msg, "%s", e.msg);
				}
				c->nbroken++;
			} else if (!bad && ls != SC_OK) {
				fprintf(log, "%s\n", e.msg);
				bad = 1;
			} else if (!bad) {
				t[n++].corpus = !c->no_expect; /* its `expect` line decides the exit code */
			}
			free(files[k]);
		}
		if (bad) {
			*nt = n;
			return 2;
		}
	}
	for (int k = 0; c->torch && k < n; k++) /* --torch: over every spec's own line */
		sc_target_set_torch(&t[k], c->torch);
	*nt = n;
	return 0;
}

/* Progress on a terminal: one line on stderr, rewritten in place. */
void sc_cli_progress(void *u, const char *target, const char *property, long cases, long total,
		     double elapsed)
{
	(void)u;
	if (elapsed < 0.5)
		return;
	fprintf(stderr, "\r\033[K  %s %s: %ld/%ld cases, %.0f cases/s", target, property, cases, total,
		cases / elapsed);
	fflush(stderr);
}

void sc_cli_progress_lines(void *u, const char *target, const char *property, long cases, long total,
			   double elapsed)
{
	static double shown = 0; /* the elapsed time last shown, for this check */
	(void)u;
	if (elapsed < shown || cases == 0)
		shown = 0; /* a new check */
	if (elapsed < shown + 10.0)
		return;
	shown = elapsed;
	fprintf(stderr, "  ... %s %s: %ld/%ld cases after %.0f s (%.0f cases/s)\n", target, property, cases, total,
		elapsed, cases / elapsed);
	fflush(stderr);
}

uint64_t sc_cli_random_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
	return sc_mix_next(&s) % 1000000000000ULL;
}

int sc_cli_load_plugins(struct sc_cli *c, struct sc_target *t, int *nt, struct sc_plugin_lib **libs,
			struct sc_err *e)
{
	*nt = 0;
	if (sc_plugin_load(c->plugin, &libs[0], e) != SC_OK)
		return 2;
	if (c->baseline && sc_plugin_load(c->baseline, &libs[1], e) != SC_OK)
		return 2;
	_Static_assert(SC_PLUGIN_MAX_TRANSFORMS <= SC_CLI_MAX_TARGETS, "every transform a plugin registers is checked");
	for (int i = 0; i < sc_plugin_count(libs[0]); i++) {
		const struct sc_plugin_transform *tr = sc_plugin_get(libs[0], i), *bt = NULL;
		int wanted = c->ntargets == 0;
		for (int k = 0; k < c->ntargets; k++)
			wanted |= sc_plugin_find(libs[0], c->targets[k]) == tr;
		if (!wanted)
			continue;
		if (libs[1] && !(bt = sc_plugin_find(libs[1], sc_plugin_name(tr)))) {
			SC_ERR(e, SC_E_USAGE, "%s: the baseline has no transform '%s'", c->baseline, sc_plugin_name(tr));
			return 2;
		}
		if (sc_target_plugin(&t[*nt], c->plugin, tr, bt, e) != SC_OK)
			return 2;
		t[*nt].plugin_timeout = c->timeout;
		if (bt)
			snprintf(t[*nt].baseline_path, sizeof t[*nt].baseline_path, "%s", c->baseline);
		(*nt)++;
	}
	for (int k = 0; k < c->ntargets; k++) {
		int found = 0;
		for (int i = 0; i < *nt; i++)
			found |= sc_plugin_find(libs[0], c->targets[k]) == t[i].plugin;
		if (!found) {
			SC_ERR(e, SC_E_USAGE, "%s: no transform '%s'", c->plugin, c->targets[k]);
			return 2;
		}
	}
	return 0;
}

/* Rank's expected local tensor (for partial outputs: the whole X). */
enum sc_status sc_cli_expected_tensor(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *cs,
				      const struct sc_layout *ol, int rank, struct sc_tensor *et,
				      struct sc_err *e)
{
	struct sc_layout l = *ol;
	if (l.kind == SC_PARTIAL)
		sc_layout_drop_partial(&l);
	struct sc_map m;
	const struct sc_spec *sp[SC_MAX_CHAIN];
	int ns;
	SC_CHECK(sc_target_specs(t, cs, sp, &ns, e));
	struct sc_mesh lcm;
	const struct sc_layout_ctx lc = sc_layout_ctx_case(sp[ns - 1], &cs->counts, cs->sizes, cs->world, &lcm);
	struct sc_tensor y; /* with a reference, the output places Y */
	const uint64_t *yp = NULL;
	if (sp[ns - 1]->ref_line) {
		SC_CHECK(sc_reference_run(&ctx->arena, sp[ns - 1], cs->sizes, cs->world, &cs->counts, &y, e));
		yp = (const uint64_t *)(const void *)y.buf->data + y.offset;
	}
	sc_layout_map_in(&l, &lc, yp ? y.shape : cs->sizes, cs->ndims, cs->world, rank, &m);
	const int use_dm = ctx->arena.use_dm; /* written here: host memory */
	ctx->arena.use_dm = 0;
	enum sc_status st = sc_tensor_empty(&ctx->arena, m.lshape, m.lndim, (unsigned)sc_dtype_size(cs->dtype), et, e);
	ctx->arena.use_dm = use_dm;
	SC_CHECK(st);
	struct sc_iter it;
	sc_iter_init(&it, m.shape, m.stride, m.ndim, m.offset);
	const unsigned es = et->buf->esize;
	for (int64_t k = 0; k < sc_tensor_numel(et); k++) {
		const uint64_t g = yp ? yp[it.off] : (uint64_t)it.off;
		sc_store_bits(et->buf->data + (size_t)k * es, es, g == SC_PROV_PAD && yp ? 0 : sc_verify_expected_bits(t, cs, g));
		sc_iter_next(&it);
	}
	return SC_OK;
}

/* Writes DIR/rank<r>.{input,output,expected}.npy for one case (no output
 * file when a step fails at run time). Returns 0, or 2 on an error. */
int sc_cli_dump_case(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *cs, const char *dir)
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
	memset(in, 0, sizeof in);
	enum sc_status st = sc_verify_run(t, cs, &ctx->x, in, &e);
	if (st != SC_OK && (ctx->x.nlocal < 1 || !in[ctx->x.nlocal - 1].buf)) {
		/* the inputs were not all made (memory): nothing to write */
		fprintf(stderr, "shardcheck: --dump: %s\n", e.msg);
		return 2;
	}
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
		if (sc_cli_expected_tensor(ctx, t, cs, ol, rank, &et, &e) != SC_OK) {
			code = 2;
			break;
		}
		snprintf(path, sizeof path, "%s/rank%d.expected.npy", dir, rank);
		if (sc_npy_write(path, &et, cs->dtype, &e) != SC_OK)
			code = 2;
	}
	if (code != 2 && s[0]->nmesh && x->first == 0) { /* each rank's mesh coordinates */
		snprintf(path, sizeof path, "%s/ranks.txt", dir);
		FILE *f = fopen(path, "w");
		for (int r = 0; f && r < cs->world; r++) {
			char rk[96];
			sc_layout_rank_text(s[0], cs->sizes, cs->world, r, rk, sizeof rk);
			fprintf(f, "rank %s\n", rk);
		}
		if (!f || fclose(f) != 0) {
			fprintf(stderr, "shardcheck: %s: cannot write\n", path);
			code = 2;
		}
	}
	if (code == 2)
		fprintf(stderr, "shardcheck: %s\n", e.msg);
	else
		printf("wrote %s/rank*.{input%s,expected}.npy for %d ranks%s\n", dir, st == SC_OK ? ",output" : "",
		       x->nlocal, s[0]->nmesh ? " and their mesh coordinates in ranks.txt" : "");
	return code;
}
