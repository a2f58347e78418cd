/* sc_report: the machine-readable report (report.json, --json) and the
 * human-readable failure text, from a list of results. */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include <stdio.h>

#include "sc_check.h"

struct sc_report_meta {
	const char *version;
	uint64_t seed;
	const char *backend;
	int argc;
	char **argv;
	/* "complete" (NULL), "running", "stopped", "out of time", "interrupted"
	 * (a signal ended the run: only the checks that finished are listed),
	 * "aborted" (a process of the run died or hung) */
	const char *status;
	const char *reason; /* why the run ended early, in words (NULL: not said) */
	const char *note;   /* what the run did not cover, in words (worlds this launch had no ranks for); NULL: none */
	int torch;          /* --torch: the rules the steps followed (sc_torch); 0: the default */
};

/* The JSON document (report.json, --json) in *out, malloc'd: the caller
 * frees it. */
enum sc_status sc_report_json(const struct sc_report_meta *m, const struct sc_result *res, int n, char **out,
			      struct sc_err *e);
/* report.json built as results come (a signal's last resort writes what
 * is ready): its head, up to and with the results' "[", and one result
 * (first: the list's first; dir: the report's folder, for its picture).
 * The document is the head, the results in order, then "\n]}\n". Each
 * in *out, malloc'd: the caller frees it. */
enum sc_status sc_report_json_head(const struct sc_report_meta *m, char **out, struct sc_err *e);
enum sc_status sc_report_json_result(const struct sc_result *r, int first, const char *dir, char **out,
				     struct sc_err *e);
/* One result's <testcase> element of junit.xml in *out (malloc'd), and
 * what it counts as: 0 nothing, 1 a failure, 2 an error (a signal's last
 * resort writes junit.xml from these; expectations are not judged). */
enum sc_status sc_report_junit_case(const struct sc_result *r, char **out, int *kind, struct sc_err *e);
/* Writes DIR/failures/NAME.case and NAME.md for a failing result, at once
 * and atomically, and sets r->case_file; also NAME.svg, the picture of
 * every rank's output (sc_svg), when the failure can be drawn (NAME.md
 * embeds it, or says why there is none). */
enum sc_status sc_report_write_failure(const char *dir, struct sc_result *r, const char *backend,
				       struct sc_err *e);
/* Before a run writes its report into dir: what an earlier run left
 * there (report.json, junit.xml, summary.md, failures/) moves into
 * DIR.previous/ beside it (DIR as an absolute path; the one before is
 * replaced), so that no earlier failure stands beside this run's summary,
 * and the last run's case files, whose paths are relative to their
 * folder, still replay. Nothing else in dir is touched. *moved: 1 when
 * something moved. */
enum sc_status sc_report_fresh(const char *dir, int *moved, struct sc_err *e);
/* Writes DIR/report.json, DIR/junit.xml and DIR/summary.md atomically
 * (a counterexample's "picture" and summary.md's image: its NAME.svg in
 * DIR/failures, when there is one). */
enum sc_status sc_report_write(const char *dir, const struct sc_report_meta *m,
			       const struct sc_result *res, int n, struct sc_err *e);
/* Finds the best hint about r's counterexample into r->diagnosis, once,
 * replayed on a private sim backend: for an output of the wrong shape,
 * the step after which its shape last changed; else what holds for every
 * wrong element (its picture's diagnosis). Nothing when neither can be
 * told. */
void sc_report_diagnose(struct sc_result *r);
/* The failure block printed under a FAIL line. */
void sc_report_failure_text(FILE *out, const struct sc_result *r, const char *indent);
/* Lines of an attached compute-sanitizer report shown in the text. */
#define SC_REPORT_SANITIZER_LINES 24
/* One-line command that replays the shrunk case. */
void sc_report_replay_cmd(const struct sc_result *r, char *buf, size_t n);

#endif
