/* cli.h - the command line (getopt_long). */
#ifndef CHT_CLI_H
#define CHT_CLI_H

#include "config.h"

enum cli_action { CLI_RUN, CLI_HELP, CLI_VERSION, CLI_LIST_TABLES, CLI_LIST_LOCKS, CLI_PRINT_PINNING, CLI_SCHEMA };

/* --schema[=NAME]: the NAME given, NULL for all */
extern const char *cli_schema_name;

/* Parses and validates argv. On a usage error prints one line on stderr
 * ("chtbench: --flag: what is accepted") and returns -1; nothing is written
 * anywhere else. */
int cli_parse(int argc, char **argv, struct bench_config *cfg, enum cli_action *action);
void cli_usage(FILE *f);
void cli_free(struct bench_config *cfg);

#endif
