/* cli.h - the command line. Every flag is one entry of an option table
 * (struct cli_option): getopt_long's tables, --help, --help-markdown (the flag
 * reference of docs/flags.md) and the "not used with" errors are made from it. */
#ifndef CHT_CLI_H
#define CHT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "config.h"

enum cli_action { CLI_RUN, CLI_HELP, CLI_VERSION, CLI_LIST_TABLES, CLI_LIST_LOCKS, CLI_PRINT_PINNING, CLI_SCHEMA };

/* --schema[=NAME]: the NAME given, NULL for all */
extern const char *cli_schema_name;

/* Parses and validates argv. On a usage error prints one line on stderr
 * ("chtbench: --flag: what is accepted") and returns -1; nothing is written
 * anywhere else. */
int cli_parse(int argc, char **argv, struct bench_config *cfg, enum cli_action *action);
/* --help, or with --help-markdown the flag reference of docs/flags.md */
void cli_usage(FILE *f);
void cli_free(struct bench_config *cfg);

/* ---- the option table (also used by src/check_cli.c) ---- */

/* The modes a flag applies to: one bit per --bench kind (mode_list.h), and `chtbench check` */
enum cli_mode_bit {
#define CLI_MODE_BIT(id, name, mode, check) CLI_##id = 1u << BENCH_##id,
    CHT_BENCH_MODES(CLI_MODE_BIT)
#undef CLI_MODE_BIT
    CLI_CHECK = 1u << N_BENCH_KINDS
};
_Static_assert(N_BENCH_KINDS + 1 < 32, "every mode's bit and CLI_CHECK's fit in a flag's unsigned modes");
#define CLI_EVERY_RUN (CLI_CHECK - 1u)     /* every --bench kind */

struct cli_option;
/* Reads arg (NULL: a flag, or an optional value not given) into the option's
 * field of base. Returns 0, -1 after printing a usage error, or CLI_STOP to
 * end the reading of argv (--help, --version, ...). */
typedef int (*cli_setter)(const struct cli_option *o, const char *arg, void *base);
#define CLI_STOP 1

enum cli_arg { CLI_NO_ARG, CLI_ARG, CLI_OPT_ARG };

/* a word cli_set_choice accepts and the value it stores */
struct cli_choice {
    const char *name;
    int value;
};

struct cli_option {
    const char *name;           /* the long name, without "--" */
    char short_name;            /* 0: none */
    enum cli_arg arg;
    const char *metavar;        /* "LIST", "PCT"; of CLI_OPT_ARG the part after '=' */
    cli_setter set;
    size_t field, size;         /* where set writes in base: CLI_FIELD(struct, member) */
    uint64_t lo, hi;            /* the numeric setters' bounds (cli_set_string: lo 1 refuses "") */
    const struct cli_choice *choices;   /* cli_set_choice's words, ended by { NULL } */
    unsigned modes;             /* CLI_TABLE | ...: anywhere else it is a usage error */
    const char *def;            /* the default, read through set before argv; NULL: none or computed */
    const char *def_doc;        /* the default as documented when it is not def */
    const char *expect;         /* a bad value's error: "--NAME: expected EXPECT (got 'x')" */
    const char *accepts;        /* the doc's "accepts" column (Markdown); NULL: expect */
    const char *help;           /* --help's text (Markdown; backticks dropped there) */
    const char *doc;            /* the doc's "meaning" column; NULL: help */
    const char *sample;         /* a valid value, for tests/test_cli_doc.py (which reads it from this
                                 * entry); needed when the flag takes one and def is not plain */
};
#define CLI_FIELD(type, member) .field = offsetof(type, member), .size = sizeof(((type *)0)->member)

struct cli_spec {
    const char *prog;           /* "chtbench" or "chtbench check": the errors' prefix */
    const struct cli_option *opts;
    size_t n;
    const char *usage, *epilog; /* --help's first and last lines */
    bool list_unknown;          /* an unknown flag's error lists every flag */
    const struct cli_spec *others;  /* the other command's flags: one of them given here is named as such */
};
/* the flags of a run (src/cli.c) and of `chtbench check` (src/check_cli.c) */
extern const struct cli_spec cli_run_spec, cli_check_spec;

#define CLI_MAX_OPTIONS 96           /* flags of one command */

/* "PROG: message" on stderr; returns -1 */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* each option's def through its setter; -1 when one is refused (a bug in the table) */
int cli_defaults(const struct cli_spec *s, void *base);
/* Reads argv[1..] into base. first_at[i] gets the argv index option i was
 * first given at (0: not given). Returns 0 with optind at the first word that
 * is not an option, -1 after a usage error, or CLI_STOP. */
int cli_scan(const struct cli_spec *s, int argc, char **argv, void *base, int *first_at);
/* "FLAG: not used with MODE (only with ...)" for the earliest given flag that
 * does not apply to mode (one CLI_* bit); -1 then, else 0 */
int cli_check_modes(const struct cli_spec *s, unsigned mode, const int *first_at);
/* --help (markdown false) or the Markdown flag reference, grouped by modes */
void cli_print_help(const struct cli_spec *s, FILE *f, bool markdown);

/* the index of the flag named name (no "--") in s; a name that is not one aborts */
size_t cli_option_index(const struct cli_spec *s, const char *name);
/* "--NAME: expected EXPECT (got 'arg')"; returns -1 */
int cli_bad_value(const struct cli_option *o, const char *arg);
/* the option's field in base */
void *cli_field_of(const struct cli_option *o, void *base);
/* " (did you mean 'x'?)" for a misspelt word among the NULL-terminated names, or "" */
const char *cli_near(const char *word, const char *const *names);

/* in a setter during cli_scan: the next word of argv when it is not a flag
 * (taken: the scan goes on after it), else NULL; "--list locks" */
const char *cli_next_word(void);

/* setters for tables of any struct */
int cli_set_true(const struct cli_option *o, const char *arg, void *base);
int cli_set_string(const struct cli_option *o, const char *arg, void *base);
int cli_set_uint(const struct cli_option *o, const char *arg, void *base);     /* digits only */
int cli_set_size(const struct cli_option *o, const char *arg, void *base);     /* SIZE: 64K, 2^20 too */
int cli_set_fraction(const struct cli_option *o, const char *arg, void *base); /* a double in (0, hi] */
int cli_set_choice(const struct cli_option *o, const char *arg, void *base);
int cli_set_plugin(const struct cli_option *o, const char *arg, void *base);

#endif
