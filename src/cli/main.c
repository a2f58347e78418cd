/* shardcheck: the command-line entry point: looks the command up in the
 * table and hands over. Each command is its own file (sc_cmd_NAME.c);
 * what they share is sc_cli.c; options come from sc_flags.def. */
#include <stdio.h>
#include <string.h>

#include "sc_cli.h"
#include "sc_suggest.h"

static const struct sc_cmd *const commands[] = {
	&sc_cmd_check, &sc_cmd_eval, &sc_cmd_repro, &sc_cmd_fuzz, &sc_cmd_gate, &sc_cmd_list, &sc_cmd_trace,
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

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
	"  trace FILE.py --call EXPR --dims ... --input P --output P [-o OUT.sc]\n"
	"                                write the spec of a PyTorch function by running it\n"
	"                                on simulated ranks (needs PyTorch)\n"
	"  list                          builtins, properties, dtypes, backends\n"
	"  help COMMAND                  help on a command\n"
	"\n"
	"options: --version, --help\n"
	"exit codes: 0 all properties held (or, for specs found in a directory, every\n"
	"            `expect` was met),\n"
	"            1 a counterexample was found (or an expectation was not met),\n"
	"            2 usage, spec or environment error\n"
	"logging: SC_LOG=spec,gen,... (or all) in the environment, or --log LIST\n";

static const struct sc_cmd *find(const char *name)
{
	for (int i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
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
		const struct sc_cmd *c = argc > 2 ? find(argv[2]) : NULL;
		if (c)
			sc_cli_usage(stdout, c);
		else
			fputs(usage_main, stdout);
		return 0;
	}
	const struct sc_cmd *c = find(cmd);
	if (c)
		return c->run(argc - 2, argv + 2, argc, argv);
	struct sc_suggest s;
	sc_suggest_init(&s, cmd);
	for (int i = 0; i < NCOMMANDS; i++)
		sc_suggest_add(&s, commands[i]->name);
	char hint[96];
	fprintf(stderr, "shardcheck: unknown command '%s'%s\n\n%s", cmd, sc_suggest_hint(&s, hint, sizeof hint), usage_main);
	return 2;
}
