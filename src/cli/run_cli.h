/* cli/run_cli.h - what cli/run_flags.c (the run's flags and setters) and
 * cli/run_checks.c (the checks once argv is read, cli_parse) share; internal
 * to the command line. */
#ifndef CHT_RUN_CLI_H
#define CHT_RUN_CLI_H

#include "cli.h"

#define usage_error cli_usage_error
#define STR_(x) #x
#define STR(x) STR_(x)

/* what a run's scan leaves besides struct bench_config: reset by cli_parse */
struct run_scan {
    enum cli_action action;
    bool help_markdown;           /* --help-markdown: cli_usage prints the doc's flag reference */
    const char *lock_arg;         /* --lock: lock=NAME of the tables, or the locks to benchmark */
};
extern struct run_scan run_scan;

#endif
