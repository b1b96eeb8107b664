/*
 * cli/engine.c - the option-table engine of chtbench's command lines: a table
 * of struct cli_option (src/cli.h) makes getopt_long's tables, the generic
 * setters, --help, --help-markdown (the flag reference of docs/flags.md) and the
 * "not used with" errors. The run's table is in cli/run_flags.c, `chtbench
 * check`'s in src/check_cli.c. Every bad value is one line on stderr naming
 * the flag and what it accepts, and exit code 2 (docs/design.md "One run").
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "util.h"
#include "plugin.h"

#define CLI_OPT_BASE 256            /* getopt_long's val of option i: CLI_OPT_BASE + i */

static const char *error_prog = "chtbench";   /* the prefix of usage errors: the spec being read */
static int scan_argc;                          /* argv of the scan in progress (--list NAME reads on) */
static char **scan_argv;

int cli_usage_error(const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", error_prog, msg);
    return -1;
}
#define usage_error cli_usage_error

/* " (did you mean 'x'?)" for a misspelt word among the NULL-terminated names, or "" */
const char *cli_near(const char *word, const char *const *names)
{
    static char buf[192];
    return did_you_mean(word, names, 0, buf, sizeof buf);
}

void *cli_field_of(const struct cli_option *o, void *base)
{
    return (char *)base + o->field;
}

/* an unsigned value into a field of 1, 2, 4 or 8 bytes (bool, unsigned, enum, uint64_t, size_t) */
static void store_uint(const struct cli_option *o, void *base, uint64_t v)
{
    void *p = cli_field_of(o, base);
    switch (o->size) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: *(uint16_t *)p = (uint16_t)v; break;
    case 4: *(uint32_t *)p = (uint32_t)v; break;
    default: *(uint64_t *)p = v; break;
    }
}

int cli_bad_value(const struct cli_option *o, const char *arg)
{
    return usage_error("--%s: expected %s (got '%s')", o->name, o->expect, arg);
}

int cli_set_true(const struct cli_option *o, const char *arg, void *base)
{
    (void)arg;
    store_uint(o, base, 1);
    return 0;
}

int cli_set_string(const struct cli_option *o, const char *arg, void *base)
{
    if (o->lo && !*arg)
        return usage_error("--%s: expected %s", o->name, o->expect);
    *(const char **)cli_field_of(o, base) = arg;
    return 0;
}

int cli_set_uint(const struct cli_option *o, const char *arg, void *base)
{
    uint64_t v;
    if (!parse_uint(arg, &v) || v < o->lo || v > o->hi)
        return cli_bad_value(o, arg);
    store_uint(o, base, v);
    return 0;
}

int cli_set_size(const struct cli_option *o, const char *arg, void *base)
{
    uint64_t v;
    if (!parse_size(arg, &v) || v < o->lo || v > o->hi)
        return cli_bad_value(o, arg);
    store_uint(o, base, v);
    return 0;
}

int cli_set_fraction(const struct cli_option *o, const char *arg, void *base)
{
    double d;
    if (!parse_double(arg, &d) || !(d > 0 && d <= (double)o->hi))
        return cli_bad_value(o, arg);
    *(double *)cli_field_of(o, base) = d;
    return 0;
}

/* "--NAME: expected a|b|c (got 'x') (did you mean 'a'?)"; at most 15 words */
int cli_set_choice(const struct cli_option *o, const char *arg, void *base)
{
    const char *names[16];
    char expected[160] = "";
    size_t n = 0;
    for (const struct cli_choice *c = o->choices; c->name && n < 15; c++) {
        if (strcmp(arg, c->name) == 0) {
            store_uint(o, base, (uint64_t)c->value);
            return 0;
        }
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s", n ? "|" : "", c->name);
        names[n++] = c->name;
    }
    names[n] = NULL;
    return usage_error("--%s: expected %s (got '%s')%s", o->name, expected, arg, cli_near(arg, names));
}

/* loaded by main before parsing (src/plugin.c); here only its spelling is checked */
int cli_set_plugin(const struct cli_option *o, const char *arg, void *base)
{
    (void)o, (void)base;
    if (!plugin_arg_loaded(arg))
        return usage_error("--plugin: write --plugin PATH or --plugin=PATH in full (an abbreviation is not "
                           "loaded; got '%s')", arg);
    return 0;
}

int cli_defaults(const struct cli_spec *s, void *base)
{
    error_prog = s->prog;
    for (size_t i = 0; i < s->n; i++)
        if (s->opts[i].def && s->opts[i].set(&s->opts[i], s->opts[i].def, base) != 0)
            return -1;
    return 0;
}

/* getopt_long's tables: val CLI_OPT_BASE + i for option i, its short letter for "-x" */
static void getopt_tables(const struct cli_spec *s, struct option *longs, char *shorts)
{
    size_t k = 0;
    shorts[k++] = ':';
    for (size_t i = 0; i < s->n; i++) {
        const struct cli_option *o = &s->opts[i];
        longs[i] = (struct option){ o->name, o->arg == CLI_NO_ARG ? no_argument
                                             : o->arg == CLI_ARG ? required_argument : optional_argument,
                                    NULL, CLI_OPT_BASE + (int)i };
        if (o->short_name) {
            shorts[k++] = o->short_name;
            if (o->arg != CLI_NO_ARG)
                shorts[k++] = ':';
        }
    }
    longs[s->n] = (struct option){ NULL, 0, NULL, 0 };
    shorts[k] = '\0';
}

static const char *flag_list(const struct cli_spec *s, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s--%s", i ? ", " : "", s->opts[i].name);
    return buf;
}

/* "table runs and --bench mutex, rwlock" (markdown: the --bench part in backticks) */
static const char *modes_text(unsigned modes, bool markdown, char *buf, size_t len)
{
    static const char *const kinds[] = {
#define BENCH_NAME(id, name, mode, check) [BENCH_##id] = name,
        CHT_BENCH_MODES(BENCH_NAME)
#undef BENCH_NAME
    };
    const char *tick = markdown ? "`" : "";
    size_t n = 0;
    buf[0] = '\0';
    if ((modes & CLI_EVERY_RUN) == CLI_EVERY_RUN) {
        n = (size_t)snprintf(buf, len, "every mode");
    } else {
        if (modes & CLI_TABLE)
            n = (size_t)snprintf(buf, len, "table runs");
        unsigned k = 0;
        for (unsigned b = BENCH_TABLE + 1; b < N_BENCH_KINDS && n < len; b++)
            if (modes & (1u << b))
                n += (size_t)(k++ ? snprintf(buf + n, len - n, ", %s", kinds[b])
                                  : snprintf(buf + n, len - n, "%s%s--bench %s", n ? " and " : "", tick, kinds[b]));
        if (k && n < len)
            n += (size_t)snprintf(buf + n, len - n, "%s", tick);
    }
    if (modes & CLI_CHECK && n < len)
        snprintf(buf + n, len - n, "%s%schtbench check%s", n ? " and " : "", tick, tick);
    return buf;
}

/* the option of the other command (chtbench check, or a run) that arg names in full, or NULL */
static const struct cli_option *other_command_option(const struct cli_spec *s, const char *arg)
{
    size_t n = strcspn(arg, "=");
    for (size_t i = 0; s->others && i < s->others->n; i++) {
        const struct cli_option *o = &s->others->opts[i];
        if (strncmp(arg, "--", 2) == 0 ? n - 2 == strlen(o->name) && strncmp(arg + 2, o->name, n - 2) == 0
                                       : arg[0] == '-' && o->short_name && o->short_name == optopt)
            return o;
    }
    return NULL;
}

/* getopt_long's '?': optopt is the short option letter, the val of a long
 * option given a value it does not take (--json=1), or 0 for an unknown or
 * ambiguous long option. Never print optopt as a character unless it is one. */
static int bad_option(const struct cli_spec *s, const char *arg)
{
    int i = optopt - CLI_OPT_BASE;
    if (strncmp(arg, "--", 2) == 0 && i >= 0 && (size_t)i < s->n && s->opts[i].arg == CLI_NO_ARG)
        return usage_error("--%s: takes no value (got '%s')", s->opts[i].name, arg);
    size_t n = strcspn(arg, "=");
    if (strncmp(arg, "--", 2) == 0 && n > 2) {
        size_t m = 0;
        char cand[256] = "";
        for (size_t k = 0; k < s->n; k++)
            if (strncmp(s->opts[k].name, arg + 2, n - 2) == 0 && strlen(cand) + strlen(s->opts[k].name) + 5 < sizeof cand)
                snprintf(cand + strlen(cand), sizeof cand - strlen(cand), "%s--%s", m++ ? ", " : "", s->opts[k].name);
        if (m > 1)
            return usage_error("ambiguous option '%.*s' (could be %s)", (int)n, arg, cand);
    }
    const struct cli_option *other = other_command_option(s, arg);
    if (other) {
        char there[160];
        if (strncmp(arg, "--", 2) == 0)
            return usage_error("%.*s: not used with %s (only with %s)", (int)n, arg,
                               s->opts[0].modes & CLI_CHECK ? "chtbench check" : "a table run or --bench",
                               modes_text(other->modes, false, there, sizeof there));
        return usage_error("-%c: not used with %s (only with %s)", optopt,
                           s->opts[0].modes & CLI_CHECK ? "chtbench check" : "a table run or --bench",
                           modes_text(other->modes, false, there, sizeof there));
    }
    if (s->list_unknown) {
        char all[1024];
        return usage_error("%s: unknown option (accepted: %s)", arg, flag_list(s, all, sizeof all));
    }
    if (strncmp(arg, "--", 2) == 0) {
        /* a near miss among the long options, compared with their "--" */
        const char *flags[CLI_MAX_OPTIONS + 1];
        char spelled[CLI_MAX_OPTIONS][32], word[64], hint[192];
        for (size_t k = 0; k < s->n; k++) {
            snprintf(spelled[k], sizeof spelled[k], "--%s", s->opts[k].name);
            flags[k] = spelled[k];
        }
        snprintf(word, sizeof word, "%.*s", (int)(n < 63 ? n : 63), arg);
        did_you_mean(word, flags, s->n, hint, sizeof hint);
        if (hint[0])
            return usage_error("unknown option '%.*s'%s; see --help", (int)n, arg, hint);
        return usage_error("unknown option '%.*s' (see --help)", (int)n, arg);
    }
    if (optopt > ' ' && optopt < 127)
        return usage_error("unknown option '-%c' (see --help)", optopt);
    return usage_error("unknown option '%s' (see --help)", arg);
}

static size_t option_index(const struct cli_spec *s, int c)
{
    if (c >= CLI_OPT_BASE)
        return (size_t)(c - CLI_OPT_BASE);
    size_t i = 0;
    while (i < s->n && s->opts[i].short_name != c)
        i++;
    return i;
}

int cli_scan(const struct cli_spec *s, int argc, char **argv, void *base, int *first_at)
{
    struct option longs[CLI_MAX_OPTIONS + 1];
    char shorts[2 * CLI_MAX_OPTIONS + 2];
    const char *bare = NULL, *bare_next = NULL;   /* an optional value's flag given without '=', the word after */
    error_prog = s->prog;
    if (s->n > CLI_MAX_OPTIONS)
        return usage_error("internal error: %zu options, at most %d (CLI_MAX_OPTIONS)", s->n, CLI_MAX_OPTIONS);
    scan_argc = argc;
    scan_argv = argv;
    getopt_tables(s, longs, shorts);
    opterr = 0;
    optind = 1;
    for (;;) {
        int at = optind;
        int c = getopt_long(argc, argv, shorts, longs, NULL);
        if (c == -1)
            break;
        if (c == ':')
            return usage_error("%s: needs a value (see %s --help)", argv[optind - 1], s->prog);
        size_t i = c == '?' ? s->n : option_index(s, c);
        if (i >= s->n)
            return bad_option(s, argv[optind - 1]);
        const struct cli_option *o = &s->opts[i];
        /* an abbreviation of this command's flag that is another command's flag in full (`chtbench check
         * --initial`, short for --initial-capacity) means the other flag: refused as such */
        if (strncmp(argv[at], "--", 2) == 0 && strncmp(argv[at] + 2, o->name, strcspn(argv[at] + 2, "=")) == 0 &&
            strcspn(argv[at] + 2, "=") != strlen(o->name) && other_command_option(s, argv[at])) {
            optopt = 0;
            return bad_option(s, argv[at]);
        }
        /* -V=1, -hx: getopt returns the letter and keeps the rest of the word for later; refuse it now */
        if (c == o->short_name && o->arg == CLI_NO_ARG && optind == at && at < argc)
            return usage_error("-%c: takes no value and stands alone (got '%s')", c, argv[at]);
        if (!first_at[i])
            first_at[i] = at;
        if (o->arg == CLI_OPT_ARG && !optarg) {
            bare = o->name;
            bare_next = optind < argc ? argv[optind] : NULL;
        }
        int rc = o->set(o, optarg, base);
        if (rc)
            return rc;
    }
    if (optind < argc && bare && argv[optind] == bare_next)
        return usage_error("unexpected argument '%s' (write --%s=%s: the value of --%s follows '=')", argv[optind],
                           bare, argv[optind], bare);
    return 0;
}

int cli_check_modes(const struct cli_spec *s, unsigned mode, const int *first_at)
{
    size_t worst = s->n;
    for (size_t i = 0; i < s->n; i++)
        if (first_at[i] && !(s->opts[i].modes & mode) && (worst == s->n || first_at[i] < first_at[worst]))
            worst = i;
    if (worst == s->n)
        return 0;
    char here[64], there[160];
    if (mode == CLI_TABLE)
        snprintf(here, sizeof here, "a table run");
    else
        modes_text(mode, false, here, sizeof here);
    return usage_error("--%s: not used with %s (only with %s)", s->opts[worst].name, here,
                       modes_text(s->opts[worst].modes, false, there, sizeof there));
}

#define HELP_WIDTH 100
#define HELP_INDENT 26

/* columns of UTF-8 text, without Markdown's backticks */
static size_t text_width(const char *s, size_t bytes)
{
    size_t w = 0;
    for (size_t i = 0; i < bytes; i++)
        w += (s[i] & 0xC0) != 0x80 && s[i] != '`';
    return w;
}

/* text from column col on, wrapped at HELP_WIDTH with HELP_INDENT columns before each further line */
static void print_wrapped(FILE *f, const char *text, size_t col)
{
    bool first = true;
    while (*text) {
        size_t word = strcspn(text, " ");
        size_t w = text_width(text, word);
        if (!first && col + 1 + w > HELP_WIDTH) {
            fprintf(f, "\n%*s", HELP_INDENT, "");
            col = HELP_INDENT;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        for (size_t i = 0; i < word; i++)
            if (text[i] != '`')
                fputc(text[i], f);
        col += w;
        first = false;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', f);
}

/* "-t, --table LIST", "--latency[=EVERY]" */
static const char *flag_text(const struct cli_option *o, char *buf, size_t len)
{
    char sh[8] = "";
    if (o->short_name)
        snprintf(sh, sizeof sh, "-%c, ", o->short_name);
    snprintf(buf, len, "%s--%s%s%s%s", sh, o->name, o->arg == CLI_ARG ? " " : o->arg == CLI_OPT_ARG ? "[=" : "",
             o->arg == CLI_NO_ARG ? "" : o->metavar, o->arg == CLI_OPT_ARG ? "]" : "");
    return buf;
}

static void help_line(FILE *f, const struct cli_option *o)
{
    char flag[96], text[2048];
    flag_text(o, flag, sizeof flag);
    int col = fprintf(f, "%s%s", o->short_name ? "  " : "      ", flag);
    if (col >= HELP_INDENT - 1) {
        fprintf(f, "\n");
        col = 0;
    }
    fprintf(f, "%*s", HELP_INDENT - col, "");
    const char *def = o->def_doc ? o->def_doc : o->def;
    snprintf(text, sizeof text, "%s%s%s%s", o->help, def ? " (default " : "", def ? def : "", def ? ")" : "");
    print_wrapped(f, text, HELP_INDENT);
}

/* a Markdown table cell: '|' escaped (also inside code spans, as GitHub's tables want) */
static void md_cell(FILE *f, const char *text)
{
    fputs(" ", f);
    for (; *text; text++)
        fputs(*text == '|' ? "\\|" : (char[2]){ *text, 0 }, f);
    fputs(" |", f);
}

static void md_row(FILE *f, const struct cli_option *o)
{
    char flag[96], code[104];
    snprintf(code, sizeof code, "`%s`", flag_text(o, flag, sizeof flag));
    fputs("|", f);
    md_cell(f, code);
    md_cell(f, o->accepts ? o->accepts : o->arg != CLI_NO_ARG && o->expect ? o->expect : "");
    md_cell(f, o->def_doc ? o->def_doc : o->def ? o->def : o->arg != CLI_NO_ARG ? "—" : "");
    md_cell(f, o->doc ? o->doc : o->help);
    fputs("\n", f);
}

/* options grouped by the set of modes they apply to, groups in order of first declaration */
void cli_print_help(const struct cli_spec *s, FILE *f, bool markdown)
{
    bool one_group = true;
    for (size_t i = 1; i < s->n; i++)
        one_group &= s->opts[i].modes == s->opts[0].modes;
    if (!markdown)
        fputs(s->usage, f);
    for (size_t i = 0; i < s->n; i++) {
        size_t j = 0;
        while (j < i && s->opts[j].modes != s->opts[i].modes)
            j++;
        if (j < i)
            continue;                          /* its group is printed already */
        char title[160];
        modes_text(s->opts[i].modes, markdown, title, sizeof title);
        title[0] = (char)toupper((unsigned char)title[0]);
        if (markdown && !one_group)
            fprintf(f, "%s### %s\n\n", i ? "\n" : "", title);
        else if (!markdown && !one_group)
            fprintf(f, "\n%s:\n", title);
        if (markdown)
            fputs("| flag | accepts | default | meaning |\n|---|---|---|---|\n", f);
        for (size_t k = i; k < s->n; k++)
            if (s->opts[k].modes == s->opts[i].modes) {
                if (markdown)
                    md_row(f, &s->opts[k]);
                else
                    help_line(f, &s->opts[k]);
            }
    }
    if (!markdown && s->epilog)
        fputs(s->epilog, f);
}

size_t cli_option_index(const struct cli_spec *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->opts[i].name, name) == 0)
            return i;
    fprintf(stderr, "%s: internal error: no flag --%s\n", s->prog, name);
    abort();
}

const char *cli_next_word(void)
{
    return optind < scan_argc && scan_argv[optind][0] != '-' ? scan_argv[optind++] : NULL;
}
