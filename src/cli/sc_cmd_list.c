/* shardcheck list: built-ins, properties, dtypes, backends (and whether
 * each is compiled in). */
#include <stdio.h>

#include "sc_builtin.h"
#include "sc_cli.h"

static int list_main(int argc, char **argv, int full_argc, char **full_argv)
{
	(void)argc;
	(void)argv;
	(void)full_argc;
	(void)full_argv;
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

const struct sc_cmd sc_cmd_list = {
	"list", 0,
	"usage: shardcheck list\n\nThe built-in targets, properties, dtypes and backends of this build.\n",
	"",
	list_main,
};
