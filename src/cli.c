/*
 * cli.c - chtbench's command line. Every bad value is one line on stderr
 * naming the flag and what it accepts, and exit code 2 (docs/design.md "One run",
 * step 1); validation is complete before anything runs or is written.
 *
 * Three parts: the option-table engine (getopt_long, --help, --help-markdown
 * and the "not used with" errors from a table of struct cli_option, also
 * used by src/check_cli.c), the run's option table with its setters, and the
 * cross-field checks cli_parse makes once argv has been read.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_NUMA
#include <numa.h>
#endif
#include "alloc.h"
#include "cli.h"
#include "util.h"
#include "plugin.h"

/* ======== the option-table engine ======== */

#define CLI_MAX_OPTIONS 96
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
static const char *near(const char *word, const char *const *names)
{
    static char buf[192];
    return did_you_mean(word, names, 0, buf, sizeof buf);
}

static void *field_of(const struct cli_option *o, void *base)
{
    return (char *)base + o->field;
}

/* an unsigned value into a field of 1, 2, 4 or 8 bytes (bool, unsigned, enum, uint64_t, size_t) */
static void store_uint(const struct cli_option *o, void *base, uint64_t v)
{
    void *p = field_of(o, base);
    switch (o->size) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: *(uint16_t *)p = (uint16_t)v; break;
    case 4: *(uint32_t *)p = (uint32_t)v; break;
    default: *(uint64_t *)p = v; break;
    }
}

static int bad_value(const struct cli_option *o, const char *arg)
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
    *(const char **)field_of(o, base) = arg;
    return 0;
}

int cli_set_uint(const struct cli_option *o, const char *arg, void *base)
{
    uint64_t v;
    if (!parse_uint(arg, &v) || v < o->lo || v > o->hi)
        return bad_value(o, arg);
    store_uint(o, base, v);
    return 0;
}

int cli_set_size(const struct cli_option *o, const char *arg, void *base)
{
    uint64_t v;
    if (!parse_size(arg, &v) || v < o->lo || v > o->hi)
        return bad_value(o, arg);
    store_uint(o, base, v);
    return 0;
}

int cli_set_fraction(const struct cli_option *o, const char *arg, void *base)
{
    double d;
    if (!parse_double(arg, &d) || !(d > 0 && d <= (double)o->hi))
        return bad_value(o, arg);
    *(double *)field_of(o, base) = d;
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
    return usage_error("--%s: expected %s (got '%s')%s", o->name, expected, arg, near(arg, names));
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

/* ======== the run's flags: their setters ======== */

const char *cli_schema_name;

/* what a run's scan leaves besides struct bench_config: reset by cli_parse */
static struct {
    enum cli_action action;
    bool help_markdown;           /* --help-markdown: cli_usage prints the doc's flag reference */
    const char *lock_arg;         /* --lock: lock=NAME of the tables, or the locks to benchmark */
} run;

#define STR_(x) #x
#define STR(x) STR_(x)

/* Splits "a:x=1,y=2,b,c:z=3" into table specs: a token with ':' or without
 * '=' starts a new table, a bare key=val continues the previous one. */
static int add_tables(struct bench_config *cfg, const char *arg)
{
    char *copy = strdup(arg);
    char spec[2048] = "";
    char err[1024];
    int rc = 0;
    bool have = false;
    if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")) {
        free(copy);
        return usage_error("--table: empty element in '%s' (expected NAME or NAME:key=val,..., comma separated)", arg);
    }
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
        bool starts = !tok || strchr(tok, ':') || !strchr(tok, '=');
        if (starts && have) {
            if (cfg->ntables == MAX_TABLES) {
                rc = usage_error("--table: at most %d tables per run", MAX_TABLES);
                break;
            }
            if (registry_parse_table(spec, &cfg->table[cfg->ntables], err, sizeof err) != 0) {
                rc = usage_error("%s", err);
                break;
            }
            cfg->ntables++;
            have = false;
        }
        if (!tok)
            break;
        if (!starts && !have) {
            rc = usage_error("--table: option '%s' before any table name (expected NAME:key=val,...)", tok);
            break;
        }
        if (starts) {
            snprintf(spec, sizeof spec, "%s", tok);
            have = true;
        } else {
            size_t n = strlen(spec);
            snprintf(spec + n, sizeof spec - n, ",%s", tok);
        }
    }
    if (!rc && !cfg->ntables && !have)
        rc = usage_error("--table: expected a table name (see --list)");
    free(copy);
    return rc;
}

static int set_tables(const struct cli_option *o, const char *arg, void *base)
{
    (void)o;
    return add_tables(base, arg);
}

static int set_threads(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    free(cfg->threads);
    cfg->threads = NULL;
    cfg->nthreads = 0;
    int n = parse_uint_list(arg, 1, MAX_THREADS, &cfg->threads);
    if (n <= 0)
        return bad_value(o, arg);
    cfg->nthreads = (unsigned)n;
    return 0;
}

static int set_dist(const struct cli_option *o, const char *arg, void *base)
{
    (void)o;
    char err[512];
    struct bench_config *cfg = base;
    if (keygen_parse(arg, &cfg->dist, err, sizeof err) == 0)
        return 0;
    static const char *const dists[] = { "uniform", "zipf", "hotspot", NULL };
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, ":"), arg);
    bool known = false;
    for (unsigned k = 0; dists[k]; k++)
        known |= strcmp(name, dists[k]) == 0;
    return usage_error("%s%s", err, known ? "" : near(name, dists));
}

static int set_pin(const struct cli_option *o, const char *arg, void *base)
{
    (void)o;
    char err[512];
    struct bench_config *cfg = base;
    pin_spec_free(&cfg->pin);
    if (pin_parse(arg, &cfg->pin, err, sizeof err) != 0)
        return usage_error("%s", err);
    return 0;
}

static int set_mem(const struct cli_option *o, const char *s, void *base)
{
    (void)o;
    struct bench_config *cfg = base;
    if (strcmp(s, "local") == 0) {
        cfg->mem = MEM_LOCAL;
        return 0;
    }
    bool node = strncmp(s, "node:", 5) == 0;
    if (strcmp(s, "interleave") != 0 && !node)
        return usage_error("--mem: expected local|interleave|node:N (got '%s')", s);
#ifdef HAVE_NUMA
    if (numa_available() < 0)
        return usage_error("--mem: %s needs NUMA support, which this kernel does not offer", s);
    if (node) {
        uint64_t n;
        int max = numa_max_node();
        if (!parse_size(s + 5, &n) || (int64_t)n > max)
            return usage_error("--mem: node:N takes a NUMA node 0..%d (got '%s')", max, s + 5);
        cfg->mem_node = (int)n;
        cfg->mem = MEM_NODE;
    } else {
        cfg->mem = MEM_INTERLEAVE;
    }
    return 0;
#else
    return usage_error("--mem: %s needs libnuma, and this chtbench was built without it", s);
#endif
}

/* A results file path: only its presence here. main opens every results
 * file before anything runs (src/outfile.c: regular file, header, locking). */
static int set_results_path(const struct cli_option *o, const char *path, void *base)
{
    if (!*path)
        return usage_error("--%s: expected a file path ('-' for standard output with --csv)", o->name);
    if (strcmp(path, "-") == 0 && strcmp(o->name, "csv") != 0)
        return usage_error("--%s: '-' (standard output) is only for --csv", o->name);
    *(const char **)field_of(o, base) = path;
    return 0;
}

static int set_keybuf(const struct cli_option *o, const char *arg, void *base)
{
    uint64_t v;
    if (!parse_size(arg, &v) || (v && (v & (v - 1))) || (v && v < 1024) || v > (1ull << 28))
        return bad_value(o, arg);
    ((struct bench_config *)base)->keybuf = v;
    return 0;
}

/* --verify: a final check (full | sample | off), history[:K], or both comma separated */
#define HISTORY_DEFAULT_KEYS 256
#define HISTORY_MAX_KEYS (1ull << 20)
static int set_verify(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    char word[32];
    bool check_given = false, history_given = false;
    cfg->verify = VERIFY_AUTO;
    cfg->history_keys = 0;
    for (const char *p = arg;;) {
        const size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof word)
            return bad_value(o, arg);
        memcpy(word, p, n);
        word[n] = 0;
        if (strncmp(word, "history", 7) == 0 && (word[7] == 0 || word[7] == ':') && !history_given) {
            uint64_t k = HISTORY_DEFAULT_KEYS;
            if (word[7] == ':' && (!parse_size(word + 8, &k) || k == 0 || k > HISTORY_MAX_KEYS))
                return bad_value(o, arg);
            cfg->history_keys = k;
            history_given = true;
        } else {
            const struct cli_choice *c = o->choices;
            while (c->name && strcmp(c->name, word) != 0)
                c++;
            if (!c->name) {
                static const char *const words[] = { "full", "sample", "off", "history", NULL };
                return usage_error("--%s: expected %s (got '%s')%s", o->name, o->expect, arg, near(word, words));
            }
            if (check_given)
                return bad_value(o, arg);
            cfg->verify = (enum verify_mode)c->value;
            check_given = true;
        }
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

static int set_latency(const struct cli_option *o, const char *arg, void *base)
{
    uint64_t v = LAT_DEFAULT_EVERY;
    if (arg && (!parse_size(arg, &v) || v == 0 || v > (1ull << 32)))
        return bad_value(o, arg);
    ((struct bench_config *)base)->latency_every = v;
    return 0;
}

static int set_likwid(const struct cli_option *o, const char *arg, void *base)
{
#ifndef HAVE_LIKWID
    (void)o, (void)arg, (void)base;
    return usage_error("--likwid-marker: this chtbench was built without likwid (install liblikwid-dev and rebuild "
                       "with -Dlikwid=enabled)");
#else
    return cli_set_true(o, arg, base);
#endif
}

static int set_pipeline(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    uint64_t v;
    if (strcmp(arg, "auto") == 0) {
        cfg->pipeline_auto = true;
        cfg->pipeline = 0;
        return 0;
    }
    if (!parse_size(arg, &v) || v > CHT_PIPELINE_MAX)   /* 0: off (a sweep axis' baseline) */
        return bad_value(o, arg);
    cfg->pipeline = (unsigned)v;
    cfg->pipeline_auto = false;
    return 0;
}

static int set_allocator(const struct cli_option *o, const char *arg, void *base)
{
    (void)o;
    struct bench_config *cfg = base;
    cfg->allocator = alloc_lookup(arg);
    if (!cfg->allocator)
        return usage_error("--allocator: expected system|jemalloc|mimalloc|tcmalloc (got '%s')%s", arg,
                           near(arg, alloc_names));
    return 0;
}

/* --size and --load: a comma-separated list, each item checked by ok(); the last given list counts */
static int set_size_list(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    char buf[4096], why[128];
    const char *items[256];
    free(cfg->mem_sizes);
    cfg->mem_sizes = NULL;
    cfg->n_mem_sizes = 0;
    int n = list_split(arg, buf, sizeof buf, items, 256, false, why, sizeof why);
    if (n < 0)
        return usage_error("--size: %s in '%s' (expected %s)", why, arg, o->expect);
    cfg->mem_sizes = malloc((size_t)n * sizeof *cfg->mem_sizes);
    for (int k = 0; k < n; k++) {
        uint64_t b;
        if (!parse_size(items[k], &b) || b < o->lo || b > o->hi)
            return usage_error("--size: expected %s (got '%s' in '%s')", o->expect, items[k], arg);
        cfg->mem_sizes[cfg->n_mem_sizes++] = b;
    }
    return 0;
}

static int set_load_list(const struct cli_option *o, const char *arg, void *base)
{
    struct bench_config *cfg = base;
    char buf[4096], why[128];
    const char *items[256];
    free(cfg->occ_loads);
    cfg->occ_loads = NULL;
    cfg->occ_nloads = 0;
    int n = list_split(arg, buf, sizeof buf, items, 256, false, why, sizeof why);
    if (n < 0)
        return usage_error("--load: %s in '%s' (expected %s)", why, arg, o->expect);
    cfg->occ_loads = malloc((size_t)n * sizeof *cfg->occ_loads);
    for (int k = 0; k < n; k++) {
        double d;
        if (!parse_double(items[k], &d) || !(d > 0 && d <= 1))
            return usage_error("--load: expected %s (got '%s' in '%s')", o->expect, items[k], arg);
        cfg->occ_loads[cfg->occ_nloads++] = d;
    }
    return 0;
}

static int set_lock(const struct cli_option *o, const char *arg, void *base)
{
    (void)o, (void)base;
    run.lock_arg = arg;   /* its meaning depends on --bench: resolve_locks */
    return 0;
}

/* --list[=tables|locks], also "--list locks" */
static int set_list(const struct cli_option *o, const char *arg, void *base)
{
    (void)o, (void)base;
    if (!arg && optind < scan_argc && scan_argv[optind][0] != '-')
        arg = scan_argv[optind++];
    if (!arg || strcmp(arg, "tables") == 0) {
        run.action = CLI_LIST_TABLES;
    } else if (strcmp(arg, "locks") == 0) {
        run.action = CLI_LIST_LOCKS;
    } else {
        static const char *const what[] = { "tables", "locks", NULL };
        return usage_error("--list: expected --list, --list=tables or --list=locks (got '%s')%s", arg, near(arg, what));
    }
    return CLI_STOP;
}

/* --schema[=NAME], also "--schema table"; report_schema checks the name */
static int set_schema(const struct cli_option *o, const char *arg, void *base)
{
    (void)o, (void)base;
    if (!arg && optind < scan_argc && scan_argv[optind][0] != '-')
        arg = scan_argv[optind++];
    cli_schema_name = arg;
    run.action = CLI_SCHEMA;
    return CLI_STOP;
}

static int set_action(const struct cli_option *o, const char *arg, void *base)
{
    (void)arg, (void)base;
    run.action = strcmp(o->name, "version") == 0 ? CLI_VERSION : CLI_HELP;
    run.help_markdown = strcmp(o->name, "help-markdown") == 0;
    return CLI_STOP;
}

/* ======== the run's flags: the option table ======== */

/* Adding a flag: its field in struct bench_config (src/config.h); an id here, next to the flags of the
 * same modes; its entry in run_options[] (a cli_set_* setter or a small one above, the modes, the
 * default, the texts); a short named check below cli_parse if it constrains other flags (GIVEN(O_ID));
 * then `tests/test_cli_doc.py build/chtbench docs/cli.md --update`. getopt's tables, --help, the
 * reference in docs/cli.md and the "not used with" errors follow from the entry. */

/* every flag of a run, in the table's order (the ids index run_options[]) */
enum run_opt {
    O_TABLE, O_OPS,
    O_THREADS, O_DURATION, O_PIN, O_PRINT_PINNING, O_TOPOLOGY,
    O_REPS, O_SEED, O_JSON,
    O_UPDATE, O_INSERT, O_REMOVE, O_INITIAL, O_RANGE, O_DENSITY, O_DIST, O_KEYS, O_WORKLOAD, O_TRACE,
    O_PREFILL, O_MEM, O_WARMUP, O_KEYBUF, O_VERIFY, O_LATENCY, O_LATENCY_CSV, O_COUNTERS, O_LIKWID_MARKER,
    O_TIMELINE, O_TIMELINE_CSV, O_CEILING, O_CEILING_SLICES, O_HUGEPAGES, O_BATCH, O_PIPELINE, O_VALUE_SIZE,
    O_LOCK, O_HANDOFF, O_WAITERS,
    O_CS, O_NCS, O_WRITE, O_RCS, O_WCS, O_SIZE, O_SLOTS, O_LOAD,
    O_BENCH, O_CSV, O_ALLOCATOR, O_VALIDATE, O_PLUGIN, O_LIST, O_SCHEMA, O_VERSION, O_HELP, O_HELP_MARKDOWN,
    O_COUNT
};

#define CFG(member) CLI_FIELD(struct bench_config, member)
#define T_ CLI_TABLE
#define LOCKS_ (CLI_MUTEX | CLI_RWLOCK)

static const struct cli_choice bench_kinds[] = {
#define BENCH_CHOICE(id, name, mode, check) { name, BENCH_##id },
    CHT_BENCH_MODES(BENCH_CHOICE)
#undef BENCH_CHOICE
    { NULL, 0 } };
static const struct cli_choice prefill_modes[] = { { "single", PREFILL_SINGLE }, { "parallel", PREFILL_PARALLEL },
    { NULL, 0 } };
static const struct cli_choice verify_modes[] = { { "full", VERIFY_FULL }, { "sample", VERIFY_SAMPLE },
    { "off", VERIFY_OFF }, { NULL, 0 } };
static const struct cli_choice key_layouts[] = { { "dense", 0 }, { "sparse", 1 }, { NULL, 0 } };
static const struct cli_choice huge_modes[] = { { "off", 0 }, { "thp", 1 }, { NULL, 0 } };
static const struct cli_choice workloads[] = { { "ycsb-a", WL_YCSB_A }, { "ycsb-b", WL_YCSB_B },
    { "ycsb-c", WL_YCSB_C }, { "ycsb-d", WL_YCSB_D }, { "ycsb-f", WL_YCSB_F }, { NULL, 0 } };

_Static_assert(O_COUNT <= CLI_MAX_OPTIONS, "raise CLI_MAX_OPTIONS");
_Static_assert(CHT_VALUE_MAX == 1048576, "--value-size's texts say 1048576 (1M)");
_Static_assert(MAX_THREADS == 4096, "--threads' and --waiters' texts say 4096");

static const struct cli_option run_options[O_COUNT] = {
    /* ---- table runs and --bench occupancy ---- */
    [O_TABLE] = { "table", 't', CLI_ARG, "LIST", set_tables, 0, 0, 0, 0, NULL, T_ | CLI_OCCUPANCY, NULL, NULL, NULL,
        "`NAME` or `NAME:key=val,...`, comma separated; repeatable",
        "tables, comma separated, each NAME or NAME:key=val,... (see --list; e.g. clht-lb,locked:lock=pthread-spin)",
        "tables to run (required); a token with `:` or without `=` starts a new table, a bare `key=val` belongs to "
        "the table before it: `cuckoo:ways=4,hashes=3,clht-lb`. An empty element (`a,,b`, a trailing `,` or `:`) "
        "and a key given twice (`lock=mcs,lock=tas`) are usage errors. `null` is accepted for `noop`. "
        "`--bench occupancy`: the fixed-capacity tables to fill" },
    [O_OPS] = { "ops", 0, CLI_ARG, "N", cli_set_size, CFG(ops), 1, UINT64_MAX, NULL, T_ | CLI_OCCUPANCY, NULL, NULL,
        "operations per thread >= 1 like 100000 or 1M", "≥ 1",
        "instead of -d: each thread does exactly N operations (--bench occupancy: gets per phase)",
        "instead of `-d`: each thread performs exactly N operations; `--bench occupancy`: the gets of each "
        "lookup phase" },

    /* ---- table runs, --bench mutex, rwlock, memory ---- */
    [O_THREADS] = { "threads", 'n', CLI_ARG, "LIST", set_threads, 0, 0, 0, 0, NULL, T_ | LOCKS_ | CLI_MEMORY, "1",
        NULL, "counts 1..4096 like 1,2,4 or 1-8", "`1,2,4`, `1-8`, `1,2,4-8`; each 1..4096",
        "thread counts: 1,2,4 or 1-8 or 1,2,4-8, run in the order given", NULL },
    [O_DURATION] = { "duration", 'd', CLI_ARG, "MS", cli_set_size, CFG(duration_ms), 1, 86400000, NULL,
        T_ | LOCKS_ | CLI_MEMORY, "1000", "1000; `--bench memory`: 200", "milliseconds 1..86400000",
        "1..86400000", "length of the timed phase in ms; --bench memory: of each point", NULL },
    [O_PIN] = { "pin", 'p', CLI_ARG, "POLICY", set_pin, 0, 0, 0, 0, NULL, T_ | LOCKS_ | CLI_MEMORY, NULL, "default",
        NULL, "`default`, `compact`, `balanced`, `list:0,2,4-7`", "thread placement: default | compact | balanced | "
        "list:0,2,4-7", "thread placement (\"Pinning plans\")" },
    [O_PRINT_PINNING] = { "print-pinning", 0, CLI_NO_ARG, NULL, cli_set_true, CFG(print_pinning), 0, 0, NULL,
        T_ | LOCKS_ | CLI_MEMORY, NULL, NULL, NULL, NULL,
        "print the plan for each thread count (thread pu core socket numa) and exit",
        "print the plan for each thread count and exit: `thread pu core socket numa` (OS indexes, `-` for default "
        "pinning)" },
    [O_TOPOLOGY] = { "topology", 0, CLI_ARG, "SPEC", cli_set_string, CFG(topology), 0, 0, NULL,
        T_ | LOCKS_ | CLI_MEMORY, NULL, "this machine", NULL,
        "hwloc synthetic (`\"pack:2 core:8 pu:2\"`, at most 16384 PUs) or an hwloc XML file",
        "with --print-pinning only: a hwloc synthetic topology (\"pack:2 core:8 pu:2\") or XML file",
        "only with `--print-pinning`; a larger synthetic topology is refused at once (hwloc's build time grows "
        "quadratically: 20 s at 65536 PUs)" },

    /* ---- table runs, --bench mutex, rwlock, occupancy ---- */
    [O_REPS] = { "reps", 'R', CLI_ARG, "N", cli_set_size, CFG(reps), 1, 10000, NULL, T_ | LOCKS_ | CLI_OCCUPANCY, "1",
        NULL, "1..10000", NULL, "repetitions, each on a fresh table (or lock)",
        "repetitions, each on a fresh table (lock); the summary gives median, mean, min, max, stdev" },
    [O_SEED] = { "seed", 0, CLI_ARG, "N", cli_set_size, CFG(seed), 0, UINT64_MAX, NULL, T_ | LOCKS_ | CLI_OCCUPANCY,
        "1", NULL, "an unsigned 64-bit integer", "64-bit", "seed of every key stream",
        "seeds every stream: thread `t` of repetition `k` uses stream `(seed + k, t)`" },
    [O_JSON] = { "json", 0, CLI_NO_ARG, NULL, cli_set_true, CFG(json), 0, 0, NULL, T_ | LOCKS_ | CLI_OCCUPANCY, NULL,
        NULL, NULL, NULL, "one JSON record per repetition on stdout; the summary moves to stderr", NULL },

    /* ---- table runs ---- */
    [O_UPDATE] = { "update", 'u', CLI_ARG, "PCT", cli_set_uint, CFG(update), 0, 100, NULL, T_, "10", NULL,
        "a percentage 0..100, digits only", "0..100",
        "update percentage, split half insert, half remove (an odd `u` gives insert the extra point)", NULL },
    [O_INSERT] = { "insert", 0, CLI_ARG, "PCT", cli_set_uint, CFG(insert), 0, 100, NULL, T_, NULL, NULL,
        "a percentage 0..100, digits only", "0..100, with `--remove` at most 100 in all",
        "insert percentage: an uneven split; with only one of --insert and --remove, the other is u minus it",
        NULL },
    [O_REMOVE] = { "remove", 0, CLI_ARG, "PCT", cli_set_uint, CFG(remove), 0, 100, NULL, T_, NULL, NULL,
        "a percentage 0..100, digits only", "0..100, with `--insert` at most 100 in all",
        "remove percentage (see --insert)", NULL },
    [O_INITIAL] = { "initial", 'i', CLI_ARG, "SIZE", cli_set_size, CFG(initial), 1, CHT_KEY_MAX >> 1, NULL, T_, "1M",
        NULL, "a size 1..2^38 like 1000, 64K, 1M or 2^20", "1..2^38",
        "keys prefilled; SIZE is 1000, 64K, 1M, 1G, 1T (binary: K = 2^10) or B^E (2^20, 10^6)",
        "keys prefilled; SIZE is `1000`, `64K`, `1M`, `1G`, `1T` (binary: K = 2^10) or `B^E` (`2^20`, `10^6`). "
        "More than 2^38 is a usage error (the prefill would take hours even for `noop`: ~70M keys/s a thread); so "
        "is, for a table storing data, `initial` × 16 bytes (key and value) above this machine's memory" },
    [O_RANGE] = { "range", 'r', CLI_ARG, "SIZE", cli_set_size, CFG(range), 1, CHT_KEY_MAX, NULL, T_, NULL,
        "`2 × initial`", "a size 1..2^62 like 2M or 2^21", "initial..2^62", "keys are drawn from [1, r]", NULL },
    [O_DENSITY] = { "density", 0, CLI_ARG, "D", cli_set_fraction, CFG(density), 0, 64, NULL, T_, "0.5", NULL,
        "a number in (0, 64]", "(0, 64]", "initial / slot capacity: the tables size themselves from it",
        "`initial / slot capacity`: the tables size themselves from it (hotring from its `ratio=` keys per bucket "
        "instead; fixed-capacity tables refuse D > 1). `initial / D` slots × 8 bytes above this machine's memory is "
        "a usage error naming `--density` and `--initial` (tables storing data)" },
    [O_DIST] = { "dist", 0, CLI_ARG, "SPEC", set_dist, 0, 0, 0, 0, NULL, T_, "uniform", NULL, NULL,
        "`uniform`, `zipf:THETA`, `zipf:THETA,scramble` (THETA > 0), `hotspot:keys=PCT,ops=PCT[,shift=MS]`",
        "key distribution: uniform | zipf:THETA[,scramble] | hotspot:keys=PCT,ops=PCT[,shift=MS]",
        "key distribution of the timed phase; Zipf rank 1 is key 1 unless `scramble` spreads ranks over `[1, r]` "
        "with a bijection; hotspot: see \"Workloads\"" },
    [O_KEYS] = { "keys", 0, CLI_ARG, "LAYOUT", cli_set_choice, CFG(keys_sparse), 0, 0, key_layouts, T_, "dense",
        NULL, NULL, "`dense`, `sparse`",
        "dense: keys 1..r | sparse: the same keys spread over 61 bits by a fixed bijection, off the clock",
        "`sparse`: every key `k` of `[1, r]` is replaced by a fixed bijection of `[1, 2^61]` before the run "
        "(prefill, key buffers, final check; never in the timed loop), so keys look like real identifiers and "
        "`hash=identity` loses the perfect spread dense keys give it (\"Key layout\"); not with `--trace`, "
        "`ycsb-d`, `--dist hotspot`, `--keybuf 0` or filters; column `keys`" },
    [O_WORKLOAD] = { "workload", 0, CLI_ARG, "W", cli_set_choice, CFG(workload), 0, 0, workloads, T_, NULL, NULL,
        NULL, "`ycsb-a`, `ycsb-b`, `ycsb-c`, `ycsb-d`, `ycsb-f`",
        "a YCSB core workload: its op mix, r = i, scrambled zipf:0.99 unless --dist (docs/cli.md \"Workloads\")",
        "a YCSB core workload instead of `-u`/`--insert`/`--remove` (\"Workloads\")" },
    [O_TRACE] = { "trace", 0, CLI_ARG, "FILE", cli_set_string, CFG(trace_path), 1, 0, NULL, T_, NULL, NULL,
        "a trace file (docs/cli.md \"Workloads\")",
        "a text or binary trace; a pipe too (`--trace /dev/stdin`, `<(zcat t.gz)`)",
        "replay a recorded trace ('OP KEY' lines or binary; each thread its share; the run ends when it is "
        "consumed)",
        "replay a recorded trace instead of generated ops (\"Workloads\"); not with `-d`, `--ops`, `--warmup`, "
        "`--dist`, `--workload`, `-u`" },
    [O_PREFILL] = { "prefill", 0, CLI_ARG, "MODE", cli_set_choice, CFG(prefill), 0, 0, prefill_modes, T_, "parallel",
        NULL, NULL, "`single`, `parallel`",
        "who inserts the i keys: thread 0 alone (single), or every thread a slice (parallel)", NULL },
    [O_MEM] = { "mem", 0, CLI_ARG, "POLICY", set_mem, 0, 0, 0, 0, NULL, T_, "local", NULL, NULL,
        "`local`, `interleave`, `node:N`",
        "memory policy (libnuma) while the table is created and prefilled: local | interleave | node:N", NULL },
    [O_WARMUP] = { "warmup", 0, CLI_ARG, "MS", cli_set_size, CFG(warmup_ms), 0, 86400000, NULL, T_, NULL,
        "100 with `-d`, 0 with `--ops`", "milliseconds 0..86400000", "0..86400000",
        "operations after the start barrier that are not timed or counted",
        "operations after the start barrier that are not timed or counted in throughput (the first ~80 ms of a "
        "run ramp up: caches, TLB, branch predictors, frequency); they use their own key stream and count in the "
        "size accounting. With `--ops` the default is 0, so a fixed-op run stays an exactly reproducible sequence" },
    [O_KEYBUF] = { "keybuf", 0, CLI_ARG, "N", set_keybuf, 0, 0, 0, 0, NULL, T_, NULL, "auto, see \"What is timed\"",
        "0 (draw keys in the loop) or a power of two 2^10..2^28 of ops per thread",
        "0, or a power of two 2^10..2^28",
        "ops drawn before the run per thread, for every distribution but hotspot (0: in the loop)",
        "ops drawn before the run per thread, for every distribution but hotspot (\"What is timed\", step 5); N × "
        "8 bytes × the largest thread count above this machine's memory is a usage error" },
    [O_VERIFY] = { "verify", 0, CLI_ARG, "MODE", set_verify, 0, 0, 0, 0, verify_modes, T_, NULL,
        "full when `r ≤ 2^24`, else sample",
        "full, sample, off, history[:K] (K 1..1048576), or one of the first three and history[:K] comma separated",
        "`full`, `sample`, `off`; `history[:K]` (K 1..2^20, default 256); one of the first three and "
        "`history[:K]`, comma separated",
        "the final check after each repetition: full | sample (2^20 keys) | off; history[:K]: every answer of "
        "the timed run on ~K watched keys checked for linearizability",
        "the final check after each repetition (\"The run\", step 6); `full` over a range (or a trace's largest "
        "key) above 2^32 is a usage error saying to use `sample` (the sweep would take hours or more). "
        "`history[:K]` also records every op of the timed run on about K watched keys spread over the range and "
        "checks each key's history for linearizability (\"Answers checked during the run\"); alone it keeps the "
        "default final check" },
    [O_LATENCY] = { "latency", 0, CLI_OPT_ARG, "EVERY", set_latency, 0, 0, 0, 0, NULL, T_, NULL,
        "512 when given bare", "--latency or --latency=EVERY, EVERY 1..2^32 ops per sample",
        "1..2^32, after `=` (`--latency=5`; `--latency 5` is a usage error saying so)",
        "time one op in EVERY with the TSC (1: every op)",
        "time one op in EVERY (1: every op) with the TSC; needs rdtscp (CPUID), else a usage error. See "
        "\"Measurement\"" },
    [O_LATENCY_CSV] = { "latency-csv", 0, CLI_ARG, "FILE", set_results_path, CFG(latency_csv), 0, 0, NULL, T_, NULL,
        NULL, NULL, "as `--csv` (not `-`, not the same file); needs `--latency`",
        "append per-store log2 latency histograms to FILE",
        "append every latency statistic and log2 histogram, one row per operation class (docs/csv.md \"Side "
        "files\")" },
    [O_COUNTERS] = { "counters", 0, CLI_ARG, "SPEC", cli_set_string, CFG(counters_spec), 0, 0, NULL, T_, NULL, NULL,
        NULL, "groups `cache`, `tlb`, `ipc` and PAPI event names, comma separated (`ipc,cache`, `ipc,PAPI_BR_MSP`); "
        "≤ 8 events in all", "PAPI counters per op: cache | tlb | ipc | EVENT,EVENT...",
        "hardware counters per op through PAPI; usage error when built without PAPI, for a name PAPI does not "
        "know, an event named twice, an empty element, or more than 8 events (groups expanded), whether or not "
        "this machine can count them" },
    [O_LIKWID_MARKER] = { "likwid-marker", 0, CLI_NO_ARG, NULL, set_likwid, CFG(likwid_marker), 0, 0, NULL, T_, NULL,
        NULL, NULL, NULL, "likwid marker regions 'prefill' and 'run' (likwid-perfctr -m)",
        "likwid marker regions `prefill` and `run`; usage error when built without likwid" },
    [O_TIMELINE] = { "timeline", 0, CLI_ARG, "MS", cli_set_size, CFG(timeline_ms), 1, 86400000, NULL, T_, NULL, NULL,
        "an interval in milliseconds 1..86400000", "1..86400000; needs `--timeline-csv`",
        "sample the throughput of all threads every MS ms", NULL },
    [O_TIMELINE_CSV] = { "timeline-csv", 0, CLI_ARG, "FILE", set_results_path, CFG(timeline_csv), 0, 0, NULL, T_,
        NULL, NULL, NULL, "as `--csv` (not `-`, not the same file); needs `--timeline`",
        "append the time series to FILE (docs/csv.md \"Side files\")", NULL },
    [O_CEILING] = { "ceiling", 0, CLI_NO_ARG, NULL, cli_set_true, CFG(ceiling), 0, 0, NULL, T_, NULL, NULL, NULL, NULL,
        "add ceiling_mops, ceiling_frac to table rows: the machine's miss rate at the table's size",
        "add `ceiling_mops`, `ceiling_frac` to table rows (\"Memory ceiling\")" },
    [O_CEILING_SLICES] = { "ceiling-slices", 0, CLI_ARG, "MS", cli_set_size, CFG(ceiling_slice_ms), 1, 10000, NULL, T_,
        NULL, NULL, "a slice in milliseconds 1..10000",
        "1..10000; needs `-d` of at least 4 × MS; not with `--ops`, `--trace`, `--timeline`, `--counters`, "
        "`--likwid-marker`",
        "measure the ceiling inside the run: the table and the ceiling's chase take turns every MS ms",
        "as `--ceiling`, but the ceiling is measured in the run itself: the table and the memory bench's chase take "
        "turns every MS ms of the timed phase, so `ceiling_frac` compares the same seconds (\"Memory ceiling\")" },
    [O_HUGEPAGES] = { "hugepages", 0, CLI_ARG, "MODE", cli_set_choice, CFG(hugepages), 0, 0, huge_modes, T_, "off",
        NULL, NULL, "`off`, `thp`", "one huge-page policy for every table's memory (\"Huge pages\")", NULL },
    [O_BATCH] = { "batch", 0, CLI_ARG, "B", cli_set_size, CFG(batch), 1, CHT_BATCH_MAX, NULL, T_, "1", NULL,
        "gets per batch 1.." STR(CHT_BATCH_MAX), "1.." STR(CHT_BATCH_MAX) "; not with `--latency`",
        "gets in batches of B through the table's get_batch",
        "the timed loop queues gets and issues them B at a time through the table's `get_batch` (software "
        "prefetching of every bucket before resolving any; a table without one gets B single gets, "
        "`get_batch=single gets` in the CSV); inserts and removes stay single and are not delayed, so a batched get "
        "may see the table a few ops later than a single get would" },
    [O_PIPELINE] = { "pipeline", 0, CLI_ARG, "W|auto", set_pipeline, 0, 0, 0, 0, NULL, T_, "0", "0: off",
        "ops in flight 0.." STR(CHT_PIPELINE_MAX) " (0: off) or auto",
        "0.." STR(CHT_PIPELINE_MAX) " or `auto`; not with `--latency` or `--batch` (except `0`)",
        "keep W ops in flight per thread: started (prefetched) in chunks, each stepped W ops after its start (tables with pipe hooks)",
        "keep W operations (gets, inserts, removes, updates) in flight per thread: ops are drawn in k chunks "
        "(k = W / 16, 1 below 32) that rotate: each turn one chunk is stepped by the table's `pipe_step` hook and "
        "a new one is started by `pipe_start` (their lines prefetched), k turns before its step; ops that need "
        "another line complete k turns after that; one thread's ops on one key complete in program order "
        "(\"Pipelined operations\"); "
        "tables without the hook run single ops (`pipeline_mode=fallback`); `auto`: single ops when the table is no "
        "larger than 4x the core's private cache (L2), else W = 32" },
    [O_VALUE_SIZE] = { "value-size", 0, CLI_ARG, "BYTES", cli_set_size, CFG(value_size), 8, CHT_VALUE_MAX, NULL, T_,
        "8", NULL, "value bytes 8..1048576 (1M), like 100 or 1K",
        "8..1048576 (1M; `K`, `M`, `2^N` accepted); over 8 only with tables that store values out of line "
        "(`hotring`, `chain`, `locked`)",
        "value bytes; over 8: stored out of line, replaced on update (tables with that capability only)",
        "bytes per value; over 8: stored out of line, replaced on update, read whole by every get (\"Value "
        "size\"); column `value_size`" },

    /* ---- table runs, --bench mutex, rwlock ---- */
    [O_LOCK] = { "lock", 0, CLI_ARG, "NAME", set_lock, 0, 0, 0, 0, NULL, T_ | LOCKS_, NULL, NULL, NULL,
        "a lock from `--list=locks`, usable here; with `--bench`: lock names, comma separated",
        "without --bench: lock=NAME for every table taking a lock; with --bench: the locks to benchmark, comma "
        "separated (see --list=locks)",
        "without `--bench`: shorthand for `lock=NAME` on every table of the run that takes a lock (option `lock`, "
        "e.g. `locked`); a table naming its own lock keeps it; a run with no such table is a usage error. With "
        "`--bench mutex` or `rwlock` (required there): the locks to benchmark, in order; an unknown name or a lock "
        "this machine cannot run (RTM locks without RTM) is a usage error giving the valid names or the reason "
        "(\"Lock benchmarks\")" },
    [O_HANDOFF] = { "handoff", 0, CLI_ARG, "N", cli_set_size, CFG(handoff_bound), 1, 1u << 30, NULL, T_ | LOCKS_,
        STR(CHT_LOCK_HANDOFF_DEFAULT), NULL, "local hand-offs 1..2^30", "1..2^30",
        "lock_config.handoff_bound of cohort locks; also the locks a table takes (lock=NAME, --lock)",
        "`lock_config.handoff_bound` (cohort locks: local hand-offs before the global lock is released); also "
        "given to the locks of a table run (`lock=NAME`, `--lock`)" },
    [O_WAITERS] = { "waiters", 0, CLI_ARG, "T", cli_set_size, CFG(waiter_threshold), 0, MAX_THREADS, NULL,
        T_ | LOCKS_, STR(CHT_LOCK_WAITER_THRESHOLD_DEFAULT), NULL, "a waiter threshold 0..4096", "0..4096",
        "lock_config.waiter_threshold of the waiter lock; also the locks a table takes",
        "`lock_config.waiter_threshold` (the waiter-count lock's T); also given to a table run's locks" },

    /* ---- the lock benchmarks, --bench memory, --bench occupancy ---- */
    [O_CS] = { "cs", 0, CLI_ARG, "N", cli_set_size, CFG(cs), 0, 1u << 30, NULL, CLI_MUTEX, "4", NULL,
        "work units 0..2^30", "0..2^30", "work units inside the critical section", NULL },
    [O_NCS] = { "ncs", 0, CLI_ARG, "N", cli_set_size, CFG(ncs), 0, 1u << 30, NULL, LOCKS_, "32", NULL,
        "work units 0..2^30", "0..2^30", "work units between critical sections", NULL },
    [O_WRITE] = { "write", 0, CLI_ARG, "PCT", cli_set_uint, CFG(write_pct), 0, 100, NULL, CLI_RWLOCK, "10", NULL,
        "a percentage 0..100, digits only", "0..100", "probability (%) that an iteration is a write", NULL },
    [O_RCS] = { "rcs", 0, CLI_ARG, "N", cli_set_size, CFG(rcs), 0, 1u << 30, NULL, CLI_RWLOCK, "4", NULL,
        "work units 0..2^30", "0..2^30", "work units inside a read section (after reading the array)", NULL },
    [O_WCS] = { "wcs", 0, CLI_ARG, "N", cli_set_size, CFG(wcs), 0, 1u << 30, NULL, CLI_RWLOCK, "4", NULL,
        "work units 0..2^30", "0..2^30", "add/subtract pairs of a write section", NULL },
    [O_SIZE] = { "size", 0, CLI_ARG, "LIST", set_size_list, 0, 0, 4096, 1ull << 40, NULL, CLI_MEMORY, NULL,
        "16K,64K,...,256M", "working-set sizes 4K..1T, comma separated, like 32K,1M,1G",
        "4K..1T each, comma separated; each at least 64 × 32 × threads bytes (every thread's 32 chases start on "
        "lines of their own)", "working sets of the pointer chases (-d: ms per point)",
        "working sets (\"Memory ceiling\"); a size too small for a thread count is a usage error before anything "
        "runs" },
    [O_SLOTS] = { "slots", 0, CLI_ARG, "N", cli_set_size, CFG(occ_slots), 64, 1ull << 40, NULL, CLI_OCCUPANCY, NULL,
        NULL, "a slot capacity 64..2^40 like 1M or 2^25", "64..2^40",
        "the capacity of each table (required)", "the capacity of each table (required; \"Occupancy and hit/miss "
        "lookups\")" },
    [O_LOAD] = { "load", 0, CLI_ARG, "LIST", set_load_list, 0, 0, 0, 0, NULL, CLI_OCCUPANCY, NULL, NULL,
        "load factors in (0, 1], comma separated, like 0.5,0.9,0.95", "load factors in (0, 1], comma separated",
        "the loads to fill each table to and measure (required)", NULL },

    /* ---- every mode ---- */
    [O_BENCH] = { "bench", 0, CLI_ARG, "KIND", cli_set_choice, CFG(bench), 0, 0, bench_kinds, CLI_EVERY_RUN, NULL,
        "table", NULL, "`table`, `mutex`, `rwlock`, `memory`, `occupancy`",
        "table (the table loop) | mutex (shared counters) | rwlock (RWBench, 64-int array) | memory (pointer-chase "
        "latency and MLP per --size) | occupancy (hit/miss gets at each --load of --slots)",
        "the table loop (the default), a lock-only benchmark (\"Lock benchmarks\"), the memory ceiling (\"Memory "
        "ceiling\") or the occupancy experiment (\"Occupancy and hit/miss lookups\")" },
    [O_CSV] = { "csv", 0, CLI_ARG, "FILE", set_results_path, CFG(csv), 0, 0, NULL, CLI_EVERY_RUN, NULL, NULL, NULL,
        "a regular file (new or with this schema's header), or `-` for standard output",
        "append the run's rows to FILE ('-': stdout; docs/csv.md)",
        "append rows (docs/csv.md); with `-` the summary moves to stderr; not with `--json`" },
    [O_ALLOCATOR] = { "allocator", 0, CLI_ARG, "NAME", set_allocator, 0, 0, 0, 0, NULL, CLI_EVERY_RUN, NULL,
        "as built, see `--version`", NULL, "`system`, `jemalloc`, `mimalloc`, `tcmalloc`",
        "malloc for the whole run, preloaded by re-executing, checked in the process",
        "the malloc of the whole process (tables, libraries, harness): chtbench re-executes itself once with the "
        "library in `LD_PRELOAD` and checks in the process that it serves malloc (\"Allocators\"); with runs and "
        "`--version`" },
    [O_VALIDATE] = { "validate", 0, CLI_NO_ARG, NULL, cli_set_true, CFG(validate), 0, 0, NULL, CLI_EVERY_RUN, NULL,
        NULL, NULL, "any command line of a run",
        "check this command line as its run would (tables created tiny, trace and results files checked) without "
        "running or writing anything: exit 0 and no output when it would start, else its error",
        "check the command line exactly as its run would — every flag and cross-check, tables, locks and options "
        "resolved and `available()` consulted, each table created tiny and destroyed, a `--trace` file loaded, the "
        "memory estimate, the pinning plans, the results files (an existing one opened and its header checked, a "
        "new one's directory checked) — then stop: nothing runs, no file is created or written, nothing is printed "
        "on stdout. Exit 0 when the run would start; otherwise the run's own one-line error and exit code (2 for "
        "bad usage, 1 when it could not run). `scripts/sweep` and `scripts/figure` use it to check every cell "
        "before the first runs" },
    [O_PLUGIN] = { "plugin", 0, CLI_ARG, "PATH", cli_set_plugin, 0, 0, 0, 0, NULL, CLI_EVERY_RUN, NULL, NULL, NULL,
        "a plugin: a shared object exporting `cht_plugin()` (docs/plugins.md); repeatable, `--plugin PATH` or "
        "`--plugin=PATH` spelt out in full",
        "load tables and locks from a plugin (repeatable; also CHTBENCH_PLUGINS=PATH:PATH; docs/plugins.md)",
        "load its tables and locks before the rest of the command line is read: they then work like built-in ones "
        "(`--list` marks them `(plugin NAME, PATH)`; rows name the plugin and the file's sha256). A missing file, a "
        "file that is not a loadable object, one without `cht_plugin`, another `CHT_ABI_VERSION`, a shared struct of "
        "another size (`cht_plugin.sizes`), a name that exists already or an ops struct missing a required member "
        "is a usage error naming the file and the reason. The same file given twice is loaded once. Also `CHTBENCH_PLUGINS` (\"Environment\")" },
    [O_LIST] = { "list", 0, CLI_OPT_ARG, "tables|locks", set_list, 0, 0, 0, 0, NULL, CLI_EVERY_RUN, NULL, NULL, NULL,
        "also `--list locks`", "list tables (or locks): source, options, availability",
        "one line per table (lock): name, summary with its source, `available` or `unavailable: why`, then "
        "`(plugin NAME, PATH)` for an entry of a plugin; for tables also their options (`key: accepted values`) "
        "and whether they take `lock=`" },
    [O_SCHEMA] = { "schema", 0, CLI_OPT_ARG, "NAME", set_schema, 0, 0, 0, 0, NULL, CLI_EVERY_RUN, NULL, "all", NULL,
        "`table`, `latency`, `timeline`, `lock`, `memory`, `occupancy`",
        "the columns of every results file (or of NAME's) as JSON (docs/csv.md)",
        "the declared columns of every results file with the schema versions, or of NAME's file, as JSON (`{name, "
        "column, type, unit, flag, meaning}` each; docs/csv.md \"Where the columns are declared\"); an unknown "
        "NAME is exit 2" },
    [O_VERSION] = { "version", 'V', CLI_NO_ARG, NULL, set_action, 0, 0, 0, 0, NULL, CLI_EVERY_RUN, NULL, NULL, NULL,
        NULL, "version and optional features built in",
        "version, git revision, build type, sanitizer, compiler, allocator (the context every CSV row carries), "
        "optional libraries built in, schema versions, the plugin ABI version and each loaded plugin's path and "
        "sha256" },
    [O_HELP] = { "help", 'h', CLI_NO_ARG, NULL, set_action, 0, 0, 0, 0, NULL, CLI_EVERY_RUN, NULL, NULL, NULL, NULL,
        "this text", "usage: every flag, grouped by the modes it applies to" },
    [O_HELP_MARKDOWN] = { "help-markdown", 0, CLI_NO_ARG, NULL, set_action, 0, 0, 0, 0, NULL, CLI_EVERY_RUN, NULL,
        NULL, NULL, NULL, "the flag reference of docs/cli.md, as Markdown",
        "this flag reference, as Markdown (tests/test_cli_doc.py checks that docs/cli.md has it)" },
};

const struct cli_spec cli_run_spec = {
    .prog = "chtbench", .opts = run_options, .n = O_COUNT, .others = &cli_check_spec,
    .usage =
"usage: chtbench [options]               a table run: the CHTBench loop on --table's tables\n"
"       chtbench --bench KIND [options]  a lock, memory or occupancy benchmark\n"
"       chtbench check [options]         the conformance checks (chtbench check --help)\n"
"A table run: n threads, u% updates (half insert, half remove), i prefilled keys from the\n"
"range [1, r], for d ms; prints a summary, appends CSV. Each flag is listed under the modes it\n"
"applies to; given in another mode it is a usage error. Details: docs/cli.md.\n",
    .epilog =
"\nExit: 0 ok, 1 a run failed its correctness check, ran out of memory or could not run,\n"
"2 bad usage, 3 a fixed-capacity table filled up, 130/143 interrupted (SIGINT/SIGTERM).\n",
};

/* ======== cross-field checks, once argv is read ======== */

static int run_first_at[O_COUNT];   /* argv index each flag was first given at (cli_scan) */
#define GIVEN(id) (run_first_at[id] != 0)

/* Cross-flag checks of the measurement options, and the machine checks
 * (rdtscp, PAPI events) that decide whether they can run at all. */
static int check_measurement(struct bench_config *cfg)
{
    if (cfg->latency_csv && !cfg->latency_every)
        return usage_error("--latency-csv: needs --latency");
    if (cfg->timeline_ms && !cfg->timeline_csv)
        return usage_error("--timeline: needs --timeline-csv FILE");
    if (cfg->timeline_csv && !cfg->timeline_ms)
        return usage_error("--timeline-csv: needs --timeline MS");
    if (cfg->ceiling_slice_ms) {
        /* the chase slices are timed apart from the table's: a count of ops,
         * a time series or counters over the whole phase would mix them */
        if (!cfg->duration_ms)
            return usage_error("--ceiling-slices: slices a run of -d ms, not with %s",
                               cfg->trace_path ? "--trace" : "--ops");
        const char *clash = cfg->timeline_ms ? "--timeline" : cfg->counters_spec ? "--counters"
                          : cfg->likwid_marker ? "--likwid-marker" : NULL;
        if (clash)
            return usage_error("--ceiling-slices: not with %s (it would measure the chase's slices too)", clash);
        if (cfg->duration_ms < 4ull * cfg->ceiling_slice_ms)
            return usage_error("--ceiling-slices: %u ms slices need -d of at least %llu ms (4 slices: two of the "
                               "table's, one chase at each k)", cfg->ceiling_slice_ms,
                               4ull * cfg->ceiling_slice_ms);
    }
    if (cfg->latency_every) {
        char why[256];
        if (!lat_supported(why, sizeof why))
            return usage_error("--latency: %s", why);
    }
    return 0;
}

/* Most keys a run prefills: about an hour even for noop, the cheapest table
 * (measured ~70M keys/s on one thread, --prefill single). */
#define MAX_PREFILL_KEYS (1ull << 38)

/* Largest range --verify full sweeps: 2^32 keys, minutes at 20-100 M lookups/s a thread. */
#define MAX_FULL_VERIFY_KEYS (1ull << 32)

static const char *human_bytes(double b, char *buf, size_t len)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    unsigned u = 0;
    while (b >= 1024 && u < 6) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%.*f %s", u ? 1 : 0, b, unit[u]);
    return buf;
}

/* Sizes the run cannot do: a table storing data needs at least 16 bytes a key
 * (key and value) and 8 bytes a slot (initial / density slots: a bucket
 * pointer at least), which must fit in this machine's memory; and no table
 * prefills more than MAX_PREFILL_KEYS keys in sane time. A lower bound only:
 * a table that cannot allocate what it really needs fails at creation. */
static int check_sizes(const struct bench_config *cfg)
{
    bool data = false;
    for (unsigned t = 0; t < cfg->ntables; t++)
        data |= !(cfg->table[t].ops->caps & CHT_CAP_NO_DATA);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (data && pages > 0 && page > 0) {
        double mem = (double)pages * (double)page;
        double keys = (double)(cfg->initial > 16 ? cfg->initial : 16);   /* tables are validated at 16 keys */
        double slots = keys / cfg->density;
        char need[32], have[32];
        double kb = 8.0 + (double)(cfg->value_size > 8 ? cfg->value_size : 8);   /* key and value */
        if (kb * keys > mem)
            return usage_error("--initial: %llu keys need at least %s (%.0f bytes a key) but this machine has %s of memory",
                               (unsigned long long)cfg->initial, human_bytes(kb * keys, need, sizeof need), kb,
                               human_bytes(mem, have, sizeof have));
        if (8 * slots > mem)
            return usage_error("--density: %g with --initial %llu asks for %.3g slots, at least %s (8 bytes a slot), but "
                               "this machine has %s of memory (raise --density or lower --initial)", cfg->density,
                               (unsigned long long)cfg->initial, slots, human_bytes(8 * slots, need, sizeof need),
                               human_bytes(mem, have, sizeof have));
    }
    if (cfg->keybuf_set && cfg->keybuf && pages > 0 && page > 0) {
        /* every thread draws its own buffer: 8 bytes an op, all threads' at once */
        unsigned most = 0;
        for (unsigned n = 0; n < cfg->nthreads; n++)
            most = cfg->threads[n] > most ? cfg->threads[n] : most;
        double mem = (double)pages * (double)page, need = 8.0 * (double)cfg->keybuf * most;
        char needs[32], have[32];
        if (need > mem)
            return usage_error("--keybuf: %llu ops x 8 bytes x %u threads need %s, but this machine has %s of memory "
                               "(lower --keybuf)", (unsigned long long)cfg->keybuf, most,
                               human_bytes(need, needs, sizeof needs), human_bytes(mem, have, sizeof have));
    }
    if (cfg->initial > MAX_PREFILL_KEYS)
        return usage_error("--initial: %llu keys would take hours to prefill (at most 2^38 = %llu)",
                           (unsigned long long)cfg->initial, MAX_PREFILL_KEYS);
    return 0;
}

/* --lock with --bench: every name known and usable here. */
static int parse_bench_locks(const char *arg, struct bench_config *cfg)
{
    char *copy = strdup(arg);
    int rc = 0;
    char names[1024];
    registry_lock_names(names, sizeof names);
    if (!*arg || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") || arg[0] == ',')
        rc = usage_error("--lock: expected lock names, comma separated (valid: %s) (got '%s')", names, arg);
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); !rc && tok; tok = strtok_r(NULL, ",", &save)) {
        const struct lock_ops *l = registry_lock(tok);
        char why[256];
        char hint[160];
        if (!l && registry_suggest_lock(tok, hint, sizeof hint)[0])
            rc = usage_error("--lock: unknown lock '%s'%s; see --list=locks", tok, hint);
        else if (!l)
            rc = usage_error("--lock: unknown lock '%s' (valid: %s)", tok, names);
        else if (!registry_lock_available(l, why, sizeof why))
            rc = usage_error("--lock: %s is not available here: %s", tok, why);
        else if (cfg->nlocks == MAX_BENCH_LOCKS)
            rc = usage_error("--lock: at most %d locks per run", MAX_BENCH_LOCKS);
        else
            cfg->locks[cfg->nlocks++] = l;
    }
    free(copy);
    return rc;
}

/* --lock without --bench: lock=NAME for every table of the run that takes a
 * lock (CHT_CAP_LOCK_PARAM) and does not name one itself, by re-parsing its
 * spec as "TABLE:lock=NAME[,its options]". */
static int apply_table_lock(const char *name, struct bench_config *cfg)
{
    char names[1024], why[256], err[1024];
    registry_lock_names(names, sizeof names);
    if (strchr(name, ','))
        return usage_error("--lock: without --bench takes one lock name (got '%s'; valid: %s)", name, names);
    const struct lock_ops *l = registry_lock(name);
    char hint[160];
    if (!l && registry_suggest_lock(name, hint, sizeof hint)[0])
        return usage_error("--lock: unknown lock '%s'%s; see --list=locks", name, hint);
    if (!l)
        return usage_error("--lock: unknown lock '%s' (valid: %s)", name, names);
    if (!registry_lock_available(l, why, sizeof why))
        return usage_error("--lock: %s is not available here: %s", name, why);
    unsigned applied = 0;
    for (unsigned t = 0; t < cfg->ntables; t++) {
        struct table_choice *c = &cfg->table[t];
        if (!(c->ops->caps & CHT_CAP_LOCK_PARAM))
            continue;
        applied++;
        if (c->lock)
            continue;                         /* the table names its own lock */
        char spec[2048];
        snprintf(spec, sizeof spec, "%s:lock=%s%s%s", c->ops->name, name, c->options_text[0] ? "," : "",
                 c->options_text);
        if (registry_parse_table(spec, c, err, sizeof err) != 0)   /* spec is a copy: c may be rebuilt */
            return usage_error("--lock: %s", err);
    }
    if (!applied)
        return usage_error("--lock: no table of this run takes a lock (use --bench to benchmark locks alone)");
    return 0;
}

/* -u / --insert / --remove: one op mix, insert + remove == update */
static int resolve_op_mix(struct bench_config *cfg)
{
    bool ins = GIVEN(O_INSERT), rem = GIVEN(O_REMOVE);
    if (!ins && !rem) {
        /* thesis: half insert, half remove; an odd u gives the extra point to insert */
        cfg->insert = (cfg->update + 1) / 2;
        cfg->remove = cfg->update / 2;
        return 0;
    }
    if (ins && rem) {
        if (GIVEN(O_UPDATE) && cfg->update != cfg->insert + cfg->remove)
            return usage_error("--update: %u%% disagrees with --insert %u%% + --remove %u%%", cfg->update,
                               cfg->insert, cfg->remove);
    } else if (ins) {
        if (cfg->insert > cfg->update)
            return usage_error("--insert: %u%% exceeds --update %u%% (give --remove too)", cfg->insert, cfg->update);
        cfg->remove = cfg->update - cfg->insert;
    } else {
        if (cfg->remove > cfg->update)
            return usage_error("--remove: %u%% exceeds --update %u%% (give --insert too)", cfg->remove, cfg->update);
        cfg->insert = cfg->update - cfg->remove;
    }
    if (cfg->insert + cfg->remove > 100)
        return usage_error("--insert/--remove: %u%% + %u%% exceeds 100%%", cfg->insert, cfg->remove);
    cfg->update = cfg->insert + cfg->remove;
    return 0;
}

/* -d / --ops / --warmup / --trace: how long the run is */
static int resolve_run_length(struct bench_config *cfg)
{
    if (GIVEN(O_DURATION) && GIVEN(O_OPS))
        return usage_error("--ops: give either --duration or --ops, not both");
    if (GIVEN(O_OPS))
        cfg->duration_ms = 0;
    /* a fixed-op run stays a fixed, reproducible sequence unless a warm-up is asked for */
    if (!GIVEN(O_WARMUP))
        cfg->warmup_ms = GIVEN(O_OPS) ? 0 : 100;
    if (!cfg->trace_path)
        return 0;
    /* a trace is the whole workload: its ops, its keys, its length */
    const char *clash = cfg->workload ? "--workload" : GIVEN(O_DIST) ? "--dist" : GIVEN(O_OPS) ? "--ops"
                      : GIVEN(O_DURATION) ? "--duration" : GIVEN(O_WARMUP) ? "--warmup"
                      : GIVEN(O_UPDATE) || GIVEN(O_INSERT) || GIVEN(O_REMOVE) ? "--update/--insert/--remove" : NULL;
    if (clash)
        return usage_error("%s: not with --trace (the trace sets the operations, their keys and the run's length)",
                           clash);
    cfg->update = cfg->insert = cfg->remove = 0;
    cfg->warmup_ms = 0;
    cfg->duration_ms = 0;
    return 0;
}

/* --verify history: the plain timed loop, with keys it can enumerate */
static int check_history(const struct bench_config *cfg)
{
    if (!cfg->history_keys)
        return 0;
    const char *clash = cfg->latency_every ? "--latency" : cfg->batch > 1 ? "--batch" : cfg->timeline_ms ?
                        "--timeline" : cfg->trace_path ? "--trace" : NULL;
    if (clash)
        return usage_error("--verify: history is not with %s (it records ops in a timed loop of its own%s)", clash,
                           cfg->trace_path ? ", on keys of the range" : "");
    return 0;
}

/* --batch, --pipeline and --latency: one way of overlapping (or timing) operations */
static int check_overlap(const struct bench_config *cfg)
{
    if (cfg->batch > 1 && cfg->latency_every)
        return usage_error("--batch: not with --latency (a batched get has no latency of its own)");
    if ((cfg->pipeline || cfg->pipeline_auto) && (cfg->latency_every || cfg->batch > 1))
        return usage_error("--pipeline: not with %s", cfg->latency_every
                               ? "--latency (a pipelined op's latency spans the W ops around it)"
                               : "--batch (choose one way to overlap the misses)");
    return 0;
}

/* --workload: YCSB's op mix and request distribution; then the range's default */
static int resolve_workload(struct bench_config *cfg)
{
    if (!cfg->workload) {
        if (!GIVEN(O_RANGE))
            cfg->range = 2 * cfg->initial;
        return 0;
    }
    /* YCSB: every key is loaded (range = initial), requests are scrambled zipfian (YCSB's
     * default, theta 0.99), the op mix is the workload's */
    if (GIVEN(O_UPDATE) || GIVEN(O_INSERT) || GIVEN(O_REMOVE))
        return usage_error("%s: not with --workload (the workload sets the op mix)",
                           GIVEN(O_UPDATE) ? "--update" : GIVEN(O_INSERT) ? "--insert" : "--remove");
    if (cfg->dist.dist == KEYGEN_HOTSPOT)
        return usage_error("--dist: hotspot is not a YCSB request distribution (use uniform or zipf)");
    /* D reads the latest keys: the Zipf draw is a recency rank (1 = the newest
     * key), so it must not be scrambled over the range, or D's reads turn uniform */
    if (cfg->workload == WL_YCSB_D && GIVEN(O_DIST) && cfg->dist.dist == KEYGEN_ZIPF && cfg->dist.scramble)
        return usage_error("--dist: ycsb-d draws a recency rank (rank 1 = the newest key): use zipf:THETA "
                           "without scramble, or uniform");
    char err[512];
    if (!GIVEN(O_DIST))
        keygen_parse(cfg->workload == WL_YCSB_D ? "zipf:0.99" : "zipf:0.99,scramble", &cfg->dist, err, sizeof err);
    if (!GIVEN(O_RANGE))
        cfg->range = cfg->initial;
    cfg->update = cfg->insert = cfg->remove = 0;
    if (cfg->range > (1ull << 61))
        return usage_error("--range: at most 2^61 with --workload");
    return 0;
}

/* --keys sparse: keys mapped before the timed phase, so only streams drawn into key buffers */
static int check_sparse_keys(const struct bench_config *cfg)
{
    if (!cfg->keys_sparse)
        return 0;
    if (cfg->trace_path)
        return usage_error("--keys: sparse is not for --trace (the trace's keys are used as they are)");
    if (cfg->workload == WL_YCSB_D)
        return usage_error("--keys: sparse is not for ycsb-d (its inserts take the next new key in the timed "
                           "loop); ycsb-a|b|c|f take it");
    if (cfg->dist.dist == KEYGEN_HOTSPOT)
        return usage_error("--keys: sparse is not for --dist hotspot (its keys are drawn in the timed loop, "
                           "where the hot set moves); uniform and zipf take it");
    if (cfg->keybuf_set && cfg->keybuf == 0)
        return usage_error("--keybuf: 0 (keys drawn in the timed loop) is not for --keys sparse (its keys are "
                           "mapped before the run, into the key buffers)");
    if (cfg->range > (1ull << KEYGEN_SPARSE_BITS))
        return usage_error("--keys: sparse needs --range at most 2^61 (got %llu)", (unsigned long long)cfg->range);
    return 0;
}

/* the key range against --verify full and --initial */
static int check_range(const struct bench_config *cfg)
{
    /* ~20-100 M lookups a second a thread: 2^32 keys is minutes, 2^62 would be centuries */
    if (cfg->verify == VERIFY_FULL && cfg->range > MAX_FULL_VERIFY_KEYS)
        return usage_error("--verify: full would look up all %llu keys of the range, more than 2^32 (hours or "
                           "more): use --verify sample (a 2^20-key sample) or off", (unsigned long long)cfg->range);
    if (cfg->range < cfg->initial)
        return usage_error("--range: %llu is smaller than --initial %llu (the range must hold the prefill)",
                           (unsigned long long)cfg->range, (unsigned long long)cfg->initial);
    return 0;
}

/* --topology needs --print-pinning; --print-pinning is the whole run (CLI_STOP) */
static int check_pinning(const struct bench_config *cfg)
{
    if (cfg->topology && !cfg->print_pinning)
        return usage_error("--topology: only with --print-pinning (a plan for another machine cannot run here)");
    if (cfg->print_pinning) {
        run.action = CLI_PRINT_PINNING;
        return CLI_STOP;
    }
    return 0;
}

static int check_csv_stdout(const struct bench_config *cfg)
{
    if (cfg->csv && strcmp(cfg->csv, "-") == 0 && cfg->json)
        return usage_error("--csv -: standard output already carries --json records; give --csv a file");
    return 0;
}

/* --bench occupancy: fixed-capacity tables, --slots and --load */
static int check_occupancy(struct bench_config *cfg)
{
    if (!cfg->ntables)
        return usage_error("--table: --bench occupancy needs the fixed-capacity tables to fill (e.g. "
                           "dense,cuckoo:resize=0)");
    if (!cfg->occ_slots || !cfg->occ_nloads)
        return usage_error("%s: --bench occupancy needs --slots N and --load LIST",
                           cfg->occ_slots ? "--load" : "--slots");
    if (cfg->csv && strcmp(cfg->csv, "-") == 0)
        return usage_error("--csv -: not with --bench occupancy (give a file)");
    for (unsigned t = 0; t < cfg->ntables; t++) {
        char why[256];
        if (!registry_choice_available(&cfg->table[t], why, sizeof why))
            return usage_error("--table: %s is not available here: %s", cfg->table[t].ops->name, why);
    }
    return 0;
}

/* --bench memory: each of the threads runs up to 32 chases, each starting on
 * its own line: refused here, not after the smaller k's rows were written */
static int check_memory(const struct bench_config *cfg)
{
    for (unsigned k = 0; cfg->mem_sizes && k < cfg->n_mem_sizes; k++)
        for (unsigned ti = 0; ti < cfg->nthreads; ti++)
            if (cfg->mem_sizes[k] < 64ull * 32 * cfg->threads[ti])
                return usage_error("--size: %llu bytes hold %llu cache lines, fewer than %u threads x 32 chases "
                                   "(the largest k) need: with -n %u give sizes of at least %llu bytes",
                                   (unsigned long long)cfg->mem_sizes[k],
                                   (unsigned long long)(cfg->mem_sizes[k] / 64), cfg->threads[ti],
                                   cfg->threads[ti], 64ull * 32 * cfg->threads[ti]);
    if (!cfg->mem_sizes)
        for (unsigned ti = 0; ti < cfg->nthreads; ti++)
            if (16384ull < 64ull * 32 * cfg->threads[ti])
                return usage_error("--threads: %u threads x 32 chases need more cache lines than the default "
                                   "sizes' smallest (16K) holds: give --size, each at least %llu bytes",
                                   cfg->threads[ti], 64ull * 32 * cfg->threads[ti]);
    return 0;
}

/* --bench mutex|rwlock: the locks to benchmark */
static int check_lock_bench(struct bench_config *cfg)
{
    if (!run.lock_arg) {
        char names[1024];
        registry_lock_names(names, sizeof names);
        return usage_error("--lock: --bench %s needs --lock NAME[,NAME...] (valid: %s)",
                           cfg->bench == BENCH_MUTEX ? "mutex" : "rwlock", names);
    }
    if (check_csv_stdout(cfg))
        return -1;
    return parse_bench_locks(run.lock_arg, cfg);
}

/* --value-size > 8 on a table storing 8-byte values: the error lists the tables that take it */
static int value_size_refused(const struct bench_config *cfg, const struct cht_ops *table)
{
    char names[512];
    size_t nl = 0;
    names[0] = '\0';
    const struct cht_ops *o;
    for (unsigned i = 0; (o = registry_table_at(i)) && nl < sizeof names; i++)
        if (o->caps & CHT_CAP_VALUE_OOL)
            nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", nl ? ", " : "", o->name);
    return usage_error("--value-size: %zu bytes needs a table that stores values out of line, and %s stores "
                       "8-byte values only (tables that take --value-size > 8: %s)", cfg->value_size, table->name,
                       names);
}

/* each table of a table run: available here, and able to do what the flags ask */
static int check_tables(const struct bench_config *cfg)
{
    if (!cfg->ntables)
        return usage_error("--table: expected at least one table (see --list)");
    /* after --lock: a table needing RTM only for its default lock runs under another */
    for (unsigned t = 0; t < cfg->ntables; t++) {
        const struct cht_ops *ops = cfg->table[t].ops;
        char why[256];
        if (!registry_choice_available(&cfg->table[t], why, sizeof why))
            return usage_error("--table: %s is not available here: %s", ops->name, why);
        if ((ops->caps & CHT_CAP_FIXED_CAP) && cfg->density > 1 && !(ops->caps & CHT_CAP_RESIZE))
            return usage_error("--density: %g keys per slot, but table %s has a fixed capacity: it cannot hold "
                               "--initial keys at a density above 1", cfg->density, ops->name);
        if (cfg->history_keys && (ops->caps & CHT_CAP_APPROXIMATE))
            return usage_error("--verify: history is not for %s, a filter (it stores no values to check)", ops->name);
        if (cfg->keys_sparse && (ops->caps & CHT_CAP_APPROXIMATE))
            return usage_error("--keys: sparse is not for %s, a filter (the harness tracks its membership by "
                               "key in [1, r])", ops->name);
        if ((cfg->workload || cfg->trace_path) && (ops->caps & CHT_CAP_APPROXIMATE))
            return usage_error("%s: not with %s, a filter (its inserts and removes must follow the harness' "
                               "membership: docs/cli.md \"The final check\")",
                               cfg->workload ? "--workload" : "--trace", ops->name);
        if (cfg->value_size > 8 && !(ops->caps & CHT_CAP_VALUE_OOL))
            return value_size_refused(cfg, ops);
        bool needs_update = cfg->workload == WL_YCSB_A || cfg->workload == WL_YCSB_B || cfg->workload == WL_YCSB_F;
        if (needs_update && !ops->update)
            return usage_error("--workload %s: table %s has no update() (YCSB A, B and F update in place; "
                               "C and D do not)", workload_name(cfg->workload), ops->name);
    }
    return 0;
}

/* --bench memory */
static int check_memory_run(struct bench_config *cfg)
{
    int rc = check_pinning(cfg);
    return rc ? rc : check_memory(cfg);
}

/* a table run, and --bench mutex, rwlock (check_lock_bench) */
static int check_table_run(struct bench_config *cfg)
{
    int rc;
    if ((rc = resolve_op_mix(cfg)) || (rc = resolve_run_length(cfg)) || (rc = check_overlap(cfg)) || (rc = check_history(cfg)) ||
        (rc = resolve_workload(cfg)) || (rc = check_sparse_keys(cfg)) || (rc = check_range(cfg)) ||
        (rc = check_pinning(cfg)))
        return rc;
    if (cfg->bench != BENCH_TABLE)
        return check_lock_bench(cfg);
    if (run.lock_arg && cfg->ntables && apply_table_lock(run.lock_arg, cfg))
        return -1;
    if ((rc = check_tables(cfg)) || (rc = check_csv_stdout(cfg)) || (rc = check_sizes(cfg)))
        return rc;
    return check_measurement(cfg);
}

int cli_parse(int argc, char **argv, struct bench_config *cfg, enum cli_action *action)
{
    memset(cfg, 0, sizeof *cfg);
    memset(&run, 0, sizeof run);
    memset(run_first_at, 0, sizeof run_first_at);
    cfg->verify = VERIFY_AUTO;
    *action = CLI_RUN;
    error_prog = cli_run_spec.prog;
    if (cli_defaults(&cli_run_spec, cfg) != 0)
        return -1;
    int rc = cli_scan(&cli_run_spec, argc, argv, cfg, run_first_at);
    *action = run.action;
    if (rc)
        return rc == CLI_STOP ? 0 : -1;
    if (optind < argc)
        return usage_error("unexpected argument '%s' (see --help)", argv[optind]);
    cfg->duration_ms_given = GIVEN(O_DURATION);
    cfg->keybuf_set = GIVEN(O_KEYBUF);
    if (cli_check_modes(&cli_run_spec, 1u << cfg->bench, run_first_at))
        return -1;
    static int (*const mode_checks[N_BENCH_KINDS])(struct bench_config *) = {
#define MODE_CHECK(id, name, mode, check) [BENCH_##id] = check,
        CHT_BENCH_MODES(MODE_CHECK)
#undef MODE_CHECK
    };
    rc = mode_checks[cfg->bench](cfg);
    *action = run.action;
    return rc == CLI_STOP ? 0 : rc ? -1 : 0;
}

void cli_usage(FILE *f)
{
    cli_print_help(&cli_run_spec, f, run.help_markdown);
}

void cli_free(struct bench_config *cfg)
{
    free(cfg->mem_sizes);
    cfg->mem_sizes = NULL;
    free(cfg->occ_loads);
    cfg->occ_loads = NULL;
    free(cfg->threads);
    cfg->threads = NULL;
    pin_spec_free(&cfg->pin);
}
