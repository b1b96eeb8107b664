/*
 * registry.c - the tables and locks by name (docs/design.md "Three layers"):
 * the built-in arrays, generated from the lists, then plugin entries.
 */
#include <string.h>
#include <stdio.h>
#include "registry.h"

/* The built-in tables and locks: those of tables/meson.build and locks/meson.build whose
 * library was found, in list order (registry_builtin.h is generated from the lists). */
#include "registry_builtin.h"

#define DECLARE_TABLE(sym) extern const struct cht_ops cht_table_##sym;
#define DECLARE_LOCK(sym) extern const struct lock_ops lock_ops_##sym;
#define ENTRY_TABLE(sym) &cht_table_##sym,
#define ENTRY_LOCK(sym) &lock_ops_##sym,
CHT_BUILTIN_TABLES(DECLARE_TABLE)
CHT_BUILTIN_LOCKS(DECLARE_LOCK)

const struct cht_ops *const cht_tables[] = { CHT_BUILTIN_TABLES(ENTRY_TABLE) NULL };
const struct lock_ops *const cht_locks[] = { CHT_BUILTIN_LOCKS(ENTRY_LOCK) NULL };

/* Plugin entries (src/plugin.c), after the built-ins. Fixed arrays: the
 * suggestion code below looks at 256 names at most anyway. */
#define REGISTRY_PLUGIN_MAX 128
static const struct cht_ops *plugin_tables[REGISTRY_PLUGIN_MAX];
static const struct registry_plugin *plugin_table_owner[REGISTRY_PLUGIN_MAX];
static unsigned n_plugin_tables;
static const struct lock_ops *plugin_locks[REGISTRY_PLUGIN_MAX];
static const struct registry_plugin *plugin_lock_owner[REGISTRY_PLUGIN_MAX];
static unsigned n_plugin_locks;

#define BUILTIN_COUNT(a) (sizeof(a) / sizeof(a)[0] - 1)

const struct cht_ops *registry_table_at(unsigned i)
{
    if (i < BUILTIN_COUNT(cht_tables))
        return cht_tables[i];
    i -= (unsigned)BUILTIN_COUNT(cht_tables);
    return i < n_plugin_tables ? plugin_tables[i] : NULL;
}

const struct lock_ops *registry_lock_at(unsigned i)
{
    if (i < BUILTIN_COUNT(cht_locks))
        return cht_locks[i];
    i -= (unsigned)BUILTIN_COUNT(cht_locks);
    return i < n_plugin_locks ? plugin_locks[i] : NULL;
}

const struct registry_plugin *registry_table_plugin(const struct cht_ops *t)
{
    for (unsigned i = 0; i < n_plugin_tables; i++)
        if (plugin_tables[i] == t)
            return plugin_table_owner[i];
    return NULL;
}

const struct registry_plugin *registry_lock_plugin(const struct lock_ops *l)
{
    for (unsigned i = 0; i < n_plugin_locks; i++)
        if (plugin_locks[i] == l)
            return plugin_lock_owner[i];
    return NULL;
}

const struct cht_ops *registry_table(const char *name)
{
    if (strcmp(name, "null") == 0)   /* the noop table's old name (pandas reads "null" as NaN) */
        name = "noop";
    const struct cht_ops *t;
    for (unsigned i = 0; (t = registry_table_at(i)); i++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

const struct lock_ops *registry_lock(const char *name)
{
    const struct lock_ops *l;
    for (unsigned i = 0; (l = registry_lock_at(i)); i++)
        if (strcmp(l->name, name) == 0)
            return l;
    return NULL;
}

/* "built in" or "plugin NAME, PATH": where an existing name comes from */
static void origin(const struct registry_plugin *p, char *buf, size_t len)
{
    if (p)
        snprintf(buf, len, "plugin %s, %s", p->name, p->path);
    else
        snprintf(buf, len, "built in");
}

int registry_add_table(const struct cht_ops *t, const struct registry_plugin *p, char *err, size_t len)
{
    const struct cht_ops *old = registry_table(t->name);
    char from[512];
    if (old || strcmp(t->name, "null") == 0) {   /* "null" is noop's alias */
        origin(old ? registry_table_plugin(old) : NULL, from, sizeof from);
        snprintf(err, len, "table '%s' already exists (%s)", t->name, from);
        return -1;
    }
    if (n_plugin_tables == REGISTRY_PLUGIN_MAX) {
        snprintf(err, len, "table '%s': more than %d plugin tables", t->name, REGISTRY_PLUGIN_MAX);
        return -1;
    }
    plugin_table_owner[n_plugin_tables] = p;
    plugin_tables[n_plugin_tables++] = t;
    return 0;
}

int registry_add_lock(const struct lock_ops *l, const struct registry_plugin *p, char *err, size_t len)
{
    const struct lock_ops *old = registry_lock(l->name);
    char from[512];
    if (old) {
        origin(registry_lock_plugin(old), from, sizeof from);
        snprintf(err, len, "lock '%s' already exists (%s)", l->name, from);
        return -1;
    }
    if (n_plugin_locks == REGISTRY_PLUGIN_MAX) {
        snprintf(err, len, "lock '%s': more than %d plugin locks", l->name, REGISTRY_PLUGIN_MAX);
        return -1;
    }
    plugin_lock_owner[n_plugin_locks] = p;
    plugin_locks[n_plugin_locks++] = l;
    return 0;
}

static void join_names(char *buf, size_t len, const char *(*name_at)(unsigned))
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned i = 0; name_at(i) && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", name_at(i));
}

static const char *table_name_at(unsigned i)
{
    const struct cht_ops *t = registry_table_at(i);
    return t ? t->name : NULL;
}

static const char *lock_name_at(unsigned i)
{
    const struct lock_ops *l = registry_lock_at(i);
    return l ? l->name : NULL;
}

void registry_table_names(char *buf, size_t len) { join_names(buf, len, table_name_at); }

unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 255 || lb > 255)
        return 255;   /* no name is that long: not a near miss */
    unsigned row[256];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *did_you_mean(const char *word, const char *const *names, size_t n, char *buf, size_t len)
{
    if (!len)
        return buf;
    buf[0] = '\0';
    size_t wl = strlen(word);
    unsigned best = 3;
    for (size_t i = 0; n ? i < n : names[i] != NULL; i++) {
        unsigned d = edit_distance(word, names[i]);
        if (d < best && d < wl)
            best = d;
    }
    if (best > 2)
        return buf;
    size_t at = (size_t)snprintf(buf, len, " (did you mean ");
    unsigned shown = 0;
    for (size_t i = 0; (n ? i < n : names[i] != NULL) && at < len; i++) {
        if (edit_distance(word, names[i]) != best || shown == 3)
            continue;
        bool dup = false;   /* a name listed twice (an alias) is suggested once */
        for (size_t j = 0; j < i; j++)
            dup |= strcmp(names[j], names[i]) == 0;
        if (dup)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s'%s'", shown ? " or " : "", names[i]);
        shown++;
    }
    if (at < len)
        snprintf(buf + at, len - at, "?)");
    return buf;
}

/* " (did you mean 'x'?)" for a misspelt table (lock) name, or "" */
static const char *near_names(const char *word, const char *(*name_at)(unsigned), char *buf, size_t len)
{
    const char *names[256];
    size_t n = 0;
    while (n < 256 && name_at((unsigned)n)) {
        names[n] = name_at((unsigned)n);
        n++;
    }
    return n ? did_you_mean(word, names, n, buf, len) : (buf[0] = '\0', buf);
}

const char *registry_suggest_table(const char *word, char *buf, size_t len)
{
    return near_names(word, table_name_at, buf, len);
}

const char *registry_suggest_lock(const char *word, char *buf, size_t len)
{
    return near_names(word, lock_name_at, buf, len);
}
void registry_lock_names(char *buf, size_t len) { join_names(buf, len, lock_name_at); }

/* The lock a table's default_lock names; NULL when it names none. A name that
 * is not a lock is a mistake in the table's definition: say so and stop. */
static const struct lock_ops *default_lock(const struct cht_ops *t)
{
    if (!t->default_lock)
        return NULL;
    const struct lock_ops *l = registry_lock(t->default_lock);
    if (!l) {
        fprintf(stderr, "chtbench: table %s: default_lock '%s' is not a lock of --list=locks\n", t->name,
                t->default_lock);
        abort();
    }
    return l;
}

/* the table itself (its library, its CPU features), whatever lock it runs under */
static bool table_itself_available(const struct cht_ops *t, char *why, size_t len)
{
    why[0] = '\0';
    return !t->available || t->available(why, len);
}

bool registry_table_available(const struct cht_ops *t, char *why, size_t len)
{
    if (!table_itself_available(t, why, len))
        return false;
    const struct lock_ops *l = default_lock(t);
    char r[192];
    if (!l || registry_lock_available(l, r, sizeof r))
        return true;
    snprintf(why, len, "its default lock %s cannot run here: %s; %s:lock=NAME runs it under any other lock",
             l->name, r, t->name);
    return false;
}

bool registry_lock_available(const struct lock_ops *l, char *why, size_t len)
{
    why[0] = '\0';
    return !l->available || l->available(why, len);
}

static void option_names(const struct cht_ops *t, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (const struct cht_option_spec *o = t->options; o && o->key && n < len; o++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", o == t->options ? "" : ", ", o->key);
    if (!t->options || !t->options[0].key)
        snprintf(buf, len, "none");
}

int registry_parse_table(const char *spec, struct table_choice *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    if (strlen(spec) >= sizeof out->text) {
        snprintf(err, len, "--table: spec too long: '%.40s...'", spec);
        return -1;
    }
    strcpy(out->text, spec);
    char *colon = strchr(out->text, ':');
    if (colon)
        *colon = '\0';
    out->ops = registry_table(out->text);
    if (!out->ops) {
        char names[1024], near[160];
        registry_table_names(names, sizeof names);
        if (registry_suggest_table(out->text, near, sizeof near)[0])
            snprintf(err, len, "--table: unknown table '%s'%s; see --list", out->text, near);
        else
            snprintf(err, len, "--table: unknown table '%s' (valid: %s)", out->text, names);
        return -1;
    }
    if (!colon)
        return 0;
    if (!colon[1]) {
        snprintf(err, len, "--table %s: expected key=val after ':'", out->ops->name);
        return -1;
    }
    snprintf(out->options_text, sizeof out->options_text, "%s", colon + 1);
    unsigned n = 0;
    for (char *save = NULL, *kv = strtok_r(colon + 1, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq || eq == kv || !eq[1]) {
            snprintf(err, len, "--table %s: option '%s' is not key=value", out->ops->name, kv);
            return -1;
        }
        *eq = '\0';
        bool known = false;
        for (const struct cht_option_spec *o = out->ops->options; o && o->key; o++)
            known |= strcmp(o->key, kv) == 0;
        if (!known) {
            char names[512], near[160];
            const char *keys[TABLE_MAX_OPTIONS * 4 + 1];
            size_t nk = 0;
            for (const struct cht_option_spec *o = out->ops->options; o && o->key && nk + 1 < sizeof keys / sizeof *keys; o++)
                keys[nk++] = o->key;
            keys[nk] = NULL;
            option_names(out->ops, names, sizeof names);
            if (nk && did_you_mean(kv, keys, nk, near, sizeof near)[0])
                snprintf(err, len, "--table %s: unknown option '%s'%s; valid: %s", out->ops->name, kv, near, names);
            else
                snprintf(err, len, "--table %s: unknown option '%s' (valid: %s)", out->ops->name, kv, names);
            return -1;
        }
        for (unsigned j = 0; j < n; j++)
            if (strcmp(out->options[j].key, kv) == 0) {
                snprintf(err, len, "--table %s: option '%s' given twice (each key at most once)", out->ops->name, kv);
                return -1;
            }
        if (n == TABLE_MAX_OPTIONS) {
            snprintf(err, len, "--table %s: more than %d options", out->ops->name, TABLE_MAX_OPTIONS);
            return -1;
        }
        out->options[n].key = kv;
        out->options[n].val = eq + 1;
        n++;
        if (strcmp(kv, "lock") == 0 && (out->ops->caps & CHT_CAP_LOCK_PARAM)) {
            out->lock = registry_lock(eq + 1);
            char why[256];
            if (!out->lock) {
                char names[1024], near[160];
                registry_lock_names(names, sizeof names);
                if (registry_suggest_lock(eq + 1, near, sizeof near)[0])
                    snprintf(err, len, "--table %s: unknown lock '%s'%s; see --list=locks", out->ops->name, eq + 1,
                             near);
                else
                    snprintf(err, len, "--table %s: unknown lock '%s' (valid: %s)", out->ops->name, eq + 1, names);
                return -1;
            }
            if (!registry_lock_available(out->lock, why, sizeof why)) {
                snprintf(err, len, "--table %s: lock %s is not available here: %s", out->ops->name, eq + 1, why);
                return -1;
            }
        }
    }
    return 0;
}

bool registry_choice_available(const struct table_choice *c, char *why, size_t len)
{
    if (!c->lock)
        return registry_table_available(c->ops, why, len);
    return table_itself_available(c->ops, why, len) && registry_lock_available(c->lock, why, len);
}

const struct lock_ops *registry_choice_lock(const struct table_choice *c)
{
    return c->lock ? c->lock : default_lock(c->ops);
}

void registry_apply_choice(const struct table_choice *c, struct cht_config *cfg)
{
    cfg->lock = registry_choice_lock(c);
    cfg->options = c->options;
}
