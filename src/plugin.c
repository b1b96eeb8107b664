/*
 * plugin.c - loads tables and locks from shared objects at run time
 * (include/cht_plugin.h; the rules are in docs/plugins.md).
 *
 * A plugin is checked completely before any of its entries reaches the
 * registry: the file, its symbol, its ABI version, its name, every required
 * member of every ops struct, and every name against the registry and
 * against the plugin's own other entries. A refused plugin is closed again.
 * Accepted plugins stay loaded until exit (their ops live in them).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cht_env.h"
#include "cht_plugin.h"
#include "config.h"
#include "plugin.h"

/* ---------------- SHA-256 (FIPS 180-4), for the plugin_sha256 column ---------------- */

struct sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char buf[64];
    size_t fill;
};

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror32(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void sha_block(struct sha256 *s, const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
        uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
    s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha_init(struct sha256 *s)
{
    static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(s->h, h0, sizeof h0);
    s->bytes = 0;
    s->fill = 0;
}

static void sha_update(struct sha256 *s, const unsigned char *p, size_t n)
{
    s->bytes += n;
    while (n) {
        size_t take = 64 - s->fill < n ? 64 - s->fill : n;
        memcpy(s->buf + s->fill, p, take);
        s->fill += take, p += take, n -= take;
        if (s->fill == 64) {
            sha_block(s, s->buf);
            s->fill = 0;
        }
    }
}

static void sha_final(struct sha256 *s, char hex[65])
{
    uint64_t bits = s->bytes * 8;
    unsigned char pad[72] = { 0x80 };
    size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;   /* then 8 bytes of length */
    for (int i = 0; i < 8; i++)
        pad[padlen + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    sha_update(s, pad, padlen + 8);
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", s->h[i]);
}

int plugin_sha256_file(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct sha256 s;
    unsigned char buf[1 << 15];
    size_t n;
    sha_init(&s);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha_update(&s, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        errno = EIO;
        return -1;
    }
    sha_final(&s, hex);
    return 0;
}

/* ---------------- the loaded plugins ---------------- */

#define PLUGIN_MAX 64
#define PLUGIN_ARGS_MAX 256

struct loaded {
    struct registry_plugin info;   /* what rows and --list show */
    char sha[65];
    dev_t dev;                     /* the file, to load it once */
    ino_t ino;
};

static struct loaded plugins[PLUGIN_MAX];
static unsigned n_plugins;
static const char *loaded_args[PLUGIN_ARGS_MAX];
static unsigned n_loaded_args;

const struct registry_plugin *plugin_at(unsigned i)
{
    return i < n_plugins ? &plugins[i].info : NULL;
}

bool plugin_arg_loaded(const char *arg)
{
    for (unsigned i = 0; i < n_loaded_args; i++)
        if (loaded_args[i] == arg)
            return true;
    return false;
}

/* Names go into --table specs and CSV cells: no ':', ',', '=' or blanks. */
static bool good_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 64)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.'))
            return false;
    return true;
}

#define NAME_RULE "1..64 letters, digits, '-', '_' or '.'"

struct member {
    const char *name;
    bool present;
};

/* "WHAT 'NAME': required member M is NULL (required: ...)" for the first NULL one */
static bool members_present(const char *what, const char *name, const struct member *m, size_t n, char *why,
                            size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (!m[i].present) {
            int k = snprintf(why, len, "%s '%s': required member %s is NULL (required:", what, name, m[i].name);
            for (size_t j = 0; j < n && k > 0 && (size_t)k < len; j++)
                k += snprintf(why + k, len - (size_t)k, "%s %s", j ? "," : "", m[j].name);
            if (k > 0 && (size_t)k < len)
                snprintf(why + k, len - (size_t)k, ")");
            return false;
        }
    return true;
}

static bool check_lock(const struct lock_ops *l, char *why, size_t len)
{
    if (!good_name(l->name)) {
        snprintf(why, len, "a lock's name is %s%s%s (expected " NAME_RULE ")", l->name ? "'" : "",
                 l->name ? l->name : "NULL", l->name ? "'" : "");
        return false;
    }
    const struct member m[] = {
        { "summary", l->summary }, { "init", l->init }, { "destroy", l->destroy }, { "lock", l->lock },
        { "unlock", l->unlock }, { "read_lock", l->read_lock }, { "read_unlock", l->read_unlock },
    };
    if (!members_present("lock", l->name, m, sizeof m / sizeof m[0], why, len))
        return false;
    if (!l->lock_size) {
        snprintf(why, len, "lock '%s': lock_size is 0 (a lock takes at least one byte)", l->name);
        return false;
    }
    if (l->ctx_size && !l->ctx_init) {
        snprintf(why, len, "lock '%s': ctx_size is %zu but ctx_init is NULL", l->name, l->ctx_size);
        return false;
    }
    if ((l->caps & LOCK_CAP_TRYLOCK) && !l->trylock) {
        snprintf(why, len, "lock '%s': caps has LOCK_CAP_TRYLOCK but trylock is NULL", l->name);
        return false;
    }
    return true;
}

static bool check_table(const struct cht_ops *t, const struct lock_ops *const *own_locks, char *why, size_t len)
{
    if (!good_name(t->name)) {
        snprintf(why, len, "a table's name is %s%s%s (expected " NAME_RULE ")", t->name ? "'" : "",
                 t->name ? t->name : "NULL", t->name ? "'" : "");
        return false;
    }
    const struct member m[] = {
        { "summary", t->summary }, { "create", t->create }, { "destroy", t->destroy }, { "get", t->get },
        { "insert", t->insert }, { "remove", t->remove }, { "size", t->size },
    };
    if (!members_present("table", t->name, m, sizeof m / sizeof m[0], why, len))
        return false;
    if ((t->caps & CHT_CAP_UPDATE) && !t->update) {
        snprintf(why, len, "table '%s': caps has CHT_CAP_UPDATE but update is NULL", t->name);
        return false;
    }
    if ((t->caps & CHT_CAP_BYTE_KEYS) && (!t->get_bytes || !t->insert_bytes || !t->remove_bytes)) {
        snprintf(why, len, "table '%s': caps has CHT_CAP_BYTE_KEYS but get_bytes, insert_bytes or remove_bytes is NULL",
                 t->name);
        return false;
    }
    if (!t->pipe_start != !t->pipe_step) {
        snprintf(why, len, "table '%s': %s is set but %s is NULL (--pipeline needs both or neither)", t->name,
                 t->pipe_start ? "pipe_start" : "pipe_step", t->pipe_start ? "pipe_step" : "pipe_start");
        return false;
    }
    for (const struct cht_option_spec *o = t->options; o && o->key; o++)
        if (!good_name(o->key) || !o->help) {
            snprintf(why, len, "table '%s': option '%s' needs a key of " NAME_RULE " and a help text", t->name,
                     o->key);
            return false;
        }
    if (t->default_lock) {
        bool found = registry_lock(t->default_lock) != NULL;
        for (unsigned i = 0; own_locks && own_locks[i] && !found; i++)
            found = own_locks[i]->name && strcmp(own_locks[i]->name, t->default_lock) == 0;
        if (!found) {
            snprintf(why, len, "table '%s': default_lock '%s' is not a lock of --list=locks or of this plugin",
                     t->name, t->default_lock);
            return false;
        }
    }
    return true;
}

/* "built in" or "plugin NAME, PATH": where an existing name comes from */
static void origin(const struct registry_plugin *p, char *buf, size_t len)
{
    if (p)
        snprintf(buf, len, "plugin %s, %s", p->name, p->path);
    else
        snprintf(buf, len, "built in");
}

/* The whole description: every entry, and no name twice (in the plugin or the registry). */
static bool check_plugin(const struct cht_plugin *d, char *why, size_t len)
{
    if (!good_name(d->name)) {
        snprintf(why, len, "its name is %s%s%s (expected " NAME_RULE ")", d->name ? "'" : "",
                 d->name ? d->name : "NULL", d->name ? "'" : "");
        return false;
    }
    for (unsigned i = 0; i < n_plugins; i++)
        if (strcmp(plugins[i].info.name, d->name) == 0) {
            snprintf(why, len, "plugin name '%s' is already loaded from %s", d->name, plugins[i].info.path);
            return false;
        }
    char from[512];
    for (unsigned i = 0; d->locks && d->locks[i]; i++) {
        const struct lock_ops *l = d->locks[i];
        if (!check_lock(l, why, len))
            return false;
        const struct lock_ops *old = registry_lock(l->name);
        origin(old ? registry_lock_plugin(old) : NULL, from, sizeof from);
        for (unsigned j = 0; j < i && !old; j++)
            if (strcmp(d->locks[j]->name, l->name) == 0)
                snprintf(from, sizeof from, "twice in this plugin"), old = l;
        if (old) {
            snprintf(why, len, "lock '%s' already exists (%s)", l->name, from);
            return false;
        }
    }
    for (unsigned i = 0; d->tables && d->tables[i]; i++) {
        const struct cht_ops *t = d->tables[i];
        if (!check_table(t, d->locks, why, len))
            return false;
        const struct cht_ops *old = registry_table(t->name);
        origin(old ? registry_table_plugin(old) : NULL, from, sizeof from);
        for (unsigned j = 0; j < i && !old; j++)
            if (strcmp(d->tables[j]->name, t->name) == 0)
                snprintf(from, sizeof from, "twice in this plugin"), old = t;
        if (old) {
            snprintf(why, len, "table '%s' already exists (%s)", t->name, from);
            return false;
        }
    }
    return true;
}

/* Every struct the plugin shares, as its compiler laid it out, against this chtbench's
 * (struct cht_abi_sizes): one that differs means other headers than these, read wrongly
 * from the first member that moved, so the plugin is refused before any of them is read. */
static bool check_abi_sizes(const struct cht_abi_sizes *got, char *why, size_t len)
{
    static const struct cht_abi_sizes want = CHT_ABI_SIZES;
    const struct { const char *name; uint32_t got, want; } each[] = {
        {"cht_ops", got->cht_ops, want.cht_ops},
        {"cht_config", got->cht_config, want.cht_config},
        {"cht_stats", got->cht_stats, want.cht_stats},
        {"cht_pipe_op", got->cht_pipe_op, want.cht_pipe_op},
        {"cht_option", got->cht_option, want.cht_option},
        {"cht_option_spec", got->cht_option_spec, want.cht_option_spec},
        {"lock_ops", got->lock_ops, want.lock_ops},
        {"lock_config", got->lock_config, want.lock_config},
        {"lock_stats", got->lock_stats, want.lock_stats},
    };
    _Static_assert(sizeof each / sizeof each[0] * sizeof(uint32_t) == sizeof(struct cht_abi_sizes),
                   "every member of struct cht_abi_sizes is checked");
    for (size_t i = 0; i < sizeof each / sizeof each[0]; i++) {
        if (each[i].got == each[i].want)
            continue;
        if (each[i].got == 0)
            snprintf(why, len, "cht_plugin.sizes.%s is 0: set .sizes = CHT_ABI_SIZES in the plugin's "
                     "struct cht_plugin (include/cht_plugin.h)", each[i].name);
        else
            snprintf(why, len, "struct %s is %u bytes in the plugin, %u in this chtbench (built against other "
                     "headers than this CHT_ABI_VERSION %u's: rebuild the plugin against this chtbench's headers)",
                     each[i].name, (unsigned)each[i].got, (unsigned)each[i].want, CHT_ABI_VERSION);
        return false;
    }
    return true;
}

int plugin_load(const char *path, const char *source, char *err, size_t len)
{
    char why[1024];
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, len, "%s %s: cannot open: %s", source, path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, len, "%s %s: not a regular file (expected a shared object, e.g. libmytable.so)", source, path);
        return -1;
    }
    for (unsigned i = 0; i < n_plugins; i++)
        if (plugins[i].dev == st.st_dev && plugins[i].ino == st.st_ino)
            return 0;   /* the same file twice (CHTBENCH_PLUGINS and --plugin): loaded once */
    if (n_plugins == PLUGIN_MAX) {
        snprintf(err, len, "%s %s: more than %d plugins", source, path, PLUGIN_MAX);
        return -1;
    }
    struct loaded *p = &plugins[n_plugins];
    if (plugin_sha256_file(path, p->sha) != 0) {
        snprintf(err, len, "%s %s: cannot read: %s", source, path, strerror(errno));
        return -1;
    }
    /* a name without '/' would be searched on the library path, not taken from here */
    char *open_path = malloc(strlen(path) + 3);
    if (!open_path) {
        snprintf(err, len, "%s %s: out of memory", source, path);
        return -1;
    }
    sprintf(open_path, "%s%s", strchr(path, '/') ? "" : "./", path);
    dlerror();
    void *h = dlopen(open_path, RTLD_NOW | RTLD_LOCAL);
    free(open_path);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, len, "%s %s: not a loadable shared object: %s", source, path, e ? e : "dlopen failed");
        return -1;
    }
    dlerror();
    cht_plugin_fn fn;
    *(void **)&fn = dlsym(h, CHT_PLUGIN_SYMBOL);   /* POSIX's way to turn the object pointer into a function */
    if (!fn) {
        snprintf(err, len, "%s %s: no symbol %s (a plugin exports const struct cht_plugin *%s(void); "
                 "docs/plugins.md)", source, path, CHT_PLUGIN_SYMBOL, CHT_PLUGIN_SYMBOL);
        dlclose(h);
        return -1;
    }
    const struct cht_plugin *d = fn();
    if (!d) {
        snprintf(err, len, "%s %s: %s() returned NULL", source, path, CHT_PLUGIN_SYMBOL);
        dlclose(h);
        return -1;
    }
    /* abi_version is the first member in every version, so it can be read before anything else */
    if (d->abi_version != CHT_ABI_VERSION) {
        snprintf(err, len, "%s %s: built against CHT_ABI_VERSION %u, this chtbench has %u (rebuild the plugin "
                 "against this chtbench's headers)", source, path, d->abi_version, CHT_ABI_VERSION);
        dlclose(h);
        return -1;
    }
    if (!check_abi_sizes(&d->sizes, why, sizeof why) || !check_plugin(d, why, sizeof why)) {
        snprintf(err, len, "%s %s: %s", source, path, why);
        dlclose(h);
        return -1;
    }
    p->info.path = strdup(path);
    if (!p->info.path) {
        snprintf(err, len, "%s %s: out of memory", source, path);
        dlclose(h);
        return -1;
    }
    p->info.name = d->name;
    p->info.sha256 = p->sha;
    p->dev = st.st_dev;
    p->ino = st.st_ino;
    n_plugins++;
    /* check_plugin ruled out every reason registry_add_* refuses but a full registry */
    for (unsigned i = 0; d->locks && d->locks[i]; i++)
        if (registry_add_lock(d->locks[i], &p->info, why, sizeof why) != 0) {
            snprintf(err, len, "%s %s: %s", source, path, why);
            return -1;
        }
    for (unsigned i = 0; d->tables && d->tables[i]; i++)
        if (registry_add_table(d->tables[i], &p->info, why, sizeof why) != 0) {
            snprintf(err, len, "%s %s: %s", source, path, why);
            return -1;
        }
    return 0;
}

static int load_one(const char *path, const char *source)
{
    char err[2048];
    if (plugin_load(path, source, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "chtbench: %s\n", err);
    return EXIT_USAGE;
}

/* Plugins built with chtbench (meson passes their paths: plugins/meson.build, the Rust maps), loaded
 * first, as if given with --plugin, so their tables are listed like built-in ones. One that is not
 * there (not built, or an installed binary away from its build directory) is skipped without a
 * word; one that is there but refused is an error like any other plugin's. */
#ifndef CHTBENCH_DEFAULT_PLUGINS
#define CHTBENCH_DEFAULT_PLUGINS ""
#endif

/* The first of a default plugin's '|'-separated places that exists, "@EXEDIR@/" read as the
 * directory of the running binary (so an installed chtbench finds the plugin installed beside it,
 * and a build directory's its own); NULL if none does. */
static const char *default_plugin_path(char *alts, char *buf, size_t len)
{
    static const char exedir_mark[] = "@EXEDIR@/";
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    for (char *save = NULL, *p = strtok_r(alts, "|", &save); p; p = strtok_r(NULL, "|", &save)) {
        if (strncmp(p, exedir_mark, sizeof exedir_mark - 1) == 0) {
            if (!slash)
                continue;
            int m = snprintf(buf, len, "%s/%s", exe, p + sizeof exedir_mark - 1);
            if (m < 0 || (size_t)m >= len)
                continue;
        } else if ((size_t)snprintf(buf, len, "%s", p) >= len) {
            continue;
        }
        char real[PATH_MAX];
        if (realpath(buf, real) && strlen(real) < len) {   /* exists; named without "bin/.." */
            strcpy(buf, real);
            return buf;
        }
    }
    return NULL;
}

int plugin_load_all(int argc, char **argv)
{
    char defaults[] = CHTBENCH_DEFAULT_PLUGINS;   /* colon separated; each '|'-separated alternatives */
    for (char *save = NULL, *p = strtok_r(defaults, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
        char path[4096];
        const char *found = default_plugin_path(p, path, sizeof path);
        if (!found)
            continue;
        int rc = load_one(found, "default plugin");
        if (rc)
            return rc;
    }
    const char *list = cht_env()->plugins;
    if (list && *list) {
        char *copy = strdup(list);   /* kept: the paths live on in the registry's copies only */
        if (!copy)
            return load_one(list, "CHTBENCH_PLUGINS:");
        int rc = 0;
        for (char *save = NULL, *p = strtok_r(copy, ":", &save); p && !rc; p = strtok_r(NULL, ":", &save))
            rc = load_one(p, "CHTBENCH_PLUGINS:");
        free(copy);
        if (rc)
            return rc;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *path;
        if (strcmp(a, "--") == 0)
            break;
        if (strcmp(a, "--plugin") == 0)
            path = i + 1 < argc ? argv[++i] : "";
        else if (strncmp(a, "--plugin=", 9) == 0)
            path = a + 9;
        else
            continue;
        if (!*path) {
            fprintf(stderr, "chtbench: --plugin: needs a value: the path of a plugin (a shared object, "
                    "docs/plugins.md)\n");
            return EXIT_USAGE;
        }
        int rc = load_one(path, "--plugin");
        if (rc)
            return rc;
        if (n_loaded_args < PLUGIN_ARGS_MAX)
            loaded_args[n_loaded_args++] = path;
    }
    return 0;
}
