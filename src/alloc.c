/*
 * alloc.c - see alloc.h. The allocator is a property of the process: which
 * shared object defines the malloc that every call binds to. It is found from
 * the process itself (dlsym(RTLD_DEFAULT, "malloc") and dladdr), never taken
 * from the flag: an allocator counts only when its own entry point lives in
 * that same object and answers (jemalloc's mallctl("version"), mimalloc's
 * mi_version, tcmalloc's tc_version) and a block just malloc'ed is its own
 * (jemalloc: thread.allocated grows by it; mimalloc: mi_is_in_heap_region;
 * tcmalloc: MallocExtension_GetOwnership).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "cht_env.h"
#include "config.h"

const char *const alloc_names[] = { "system", "jemalloc", "mimalloc", "tcmalloc", NULL };

/* The run-time allocators: the library file --allocator preloads, the Debian
 * package that installs it, and the entry point that proves it is there. */
static const struct lib {
    const char *name, *file, *package, *probe;
} libs[] = {
    { "jemalloc", "libjemalloc.so.2", "libjemalloc2", "mallctl" },
    { "mimalloc", "libmimalloc.so.2", "libmimalloc2.0", "mi_version" },
    { "tcmalloc", "libtcmalloc_minimal.so.4", "libtcmalloc-minimal4", "tc_version" },
};
#define NLIBS (sizeof libs / sizeof libs[0])

const char *alloc_lookup(const char *s)
{
    for (unsigned i = 0; alloc_names[i]; i++)
        if (strcmp(s, alloc_names[i]) == 0)
            return alloc_names[i];
    return NULL;
}

/* Does the sanitizer runtime own malloc in this build? (UBSan alone does not.) */
static bool sanitizer_owns_malloc(void)
{
    const char *s = CHTBENCH_SANITIZER;
    return strstr(s, "address") || strstr(s, "thread") || strstr(s, "memory");
}

/* The base address of the object that defines sym (in the global lookup
 * order, as a call would bind), with its file name; NULL when not defined. */
static void *object_of(const char *sym, void **addr, const char **file)
{
    void *p = dlsym(RTLD_DEFAULT, sym);
    Dl_info info;
    if (addr)
        *addr = p;
    if (!p || !dladdr(p, &info))
        return NULL;
    if (file)
        *file = info.dli_fname;
    return info.dli_fbase;
}

static void keep(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");   /* the malloc below is not optimised away */
}

/* Does allocator k, whose probe is at addr, answer, and is a fresh block its own? */
static bool answers(unsigned k, void *addr, void *base)
{
    bool ok = false;
    if (k == 0) {
        alloc_mallctl_fn mallctl = (alloc_mallctl_fn)addr;
        const char *version = NULL;
        size_t sz = sizeof version;
        if (mallctl("version", &version, &sz, NULL, 0) != 0 || !version)
            return false;
        uint64_t before = 0, after = 0;
        size_t usz = sizeof before;
        if (mallctl("thread.allocated", &before, &usz, NULL, 0) != 0)
            return true;   /* built without statistics: the version answered */
        void *p = malloc(4000);
        keep(p);
        usz = sizeof after;
        ok = mallctl("thread.allocated", &after, &usz, NULL, 0) == 0 && after - before >= 4000;
        free(p);
    } else if (k == 1) {
        int (*mi_version)(void) = (int (*)(void))addr;
        void *fn = dlsym(RTLD_DEFAULT, "mi_is_in_heap_region");
        if (mi_version() <= 0 || !fn || object_of("mi_is_in_heap_region", NULL, NULL) != base)
            return false;
        bool (*in_heap)(const void *) = (bool (*)(const void *))fn;
        void *p = malloc(4000);
        keep(p);
        ok = in_heap(p);
        free(p);
    } else {
        const char *(*tc_version)(int *, int *, const char **) = (const char *(*)(int *, int *, const char **))addr;
        int major = 0, minor = 0;
        const char *patch = NULL;
        if (!tc_version(&major, &minor, &patch))
            return false;
        void *fn = dlsym(RTLD_DEFAULT, "MallocExtension_GetOwnership");
        if (!fn || object_of("MallocExtension_GetOwnership", NULL, NULL) != base)
            return false;
        int (*ownership)(const void *) = (int (*)(const void *))fn;
        void *p = malloc(4000);
        keep(p);
        ok = ownership(p) == 1;   /* MallocExtension::kOwned */
        free(p);
    }
    return ok;
}

/* The base address of chtbench's own executable (a statically linked sanitizer runtime lives there). */
static void *program_base(void)
{
    Dl_info info;
    return dladdr((void *)program_base, &info) ? info.dli_fbase : NULL;
}

static const char *detected;
static alloc_mallctl_fn detected_mallctl;
static bool detected_glibc;             /* "system" is glibc's own malloc (mallinfo2 describes it) */
static char other[256];
static pthread_once_t detect_once = PTHREAD_ONCE_INIT;

static void detect(void)
{
    const char *file = NULL;
    void *base = object_of("malloc", NULL, &file);
#ifdef HAVE_JEMALLOC
    detected = "jemalloc";   /* if the lookup fails (a static binary): what the build links */
#else
    detected = "system";
#endif
    if (!base)
        return;
    for (unsigned k = 0; k < NLIBS; k++) {
        void *addr;
        if (object_of(libs[k].probe, &addr, NULL) == base && answers(k, addr, base)) {
            detected = libs[k].name;
            if (k == 0)
                detected_mallctl = (alloc_mallctl_fn)addr;
            return;
        }
    }
    const char *slash = file ? strrchr(file, '/') : NULL;
    const char *leaf = slash ? slash + 1 : file ? file : "";
    if (object_of("gnu_get_libc_version", NULL, NULL) == base) {
        detected = "system";
        detected_glibc = true;
    }
    else if (sanitizer_owns_malloc() && (strstr(leaf, "san") || program_base() == base))
        detected = "system";   /* the sanitizer runtime's malloc (shared, or linked in): this build's own */
    else {
        snprintf(other, sizeof other, "%s", leaf[0] ? leaf : "unknown");
        detected = other;
    }
}

const char *alloc_detected(void)
{
    pthread_once(&detect_once, detect);
    return detected;
}

bool alloc_glibc_malloc(void)
{
    pthread_once(&detect_once, detect);
    return detected_glibc;
}

alloc_mallctl_fn alloc_mallctl(void)
{
    pthread_once(&detect_once, detect);
    return detected_mallctl;
}

/* Where the libraries are looked for: the hook's directory alone, else the C
 * library's directory (the multiarch one, e.g. /lib/x86_64-linux-gnu), its
 * /usr twin, /usr/local/lib, /usr/lib64, /usr/lib. */
static unsigned search_dirs(char dirs[][256], unsigned max)
{
    const char *hook = cht_env()->test_allocator_dir;
    if (hook) {
        snprintf(dirs[0], 256, "%s", hook);
        return 1;
    }
    unsigned n = 0;
    const char *libc = NULL;
    if (object_of("gnu_get_libc_version", NULL, &libc) && libc && strrchr(libc, '/') && libc[0] == '/') {
        snprintf(dirs[n], 256, "%.*s", (int)(strrchr(libc, '/') - libc), libc);
        if (strncmp(dirs[n], "/usr/", 5) != 0 && n + 1 < max)
            snprintf(dirs[n + 1], 256, "/usr%.240s", dirs[n]), n++;
        n++;
    }
    static const char *const fixed[] = { "/usr/local/lib", "/usr/lib64", "/usr/lib" };
    for (unsigned i = 0; i < 3 && n < max; i++)
        snprintf(dirs[n++], 256, "%s", fixed[i]);
    return n;
}

/* A readable ELF file at path? */
static bool is_elf(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char magic[4];
    bool ok = read(fd, magic, 4) == 4 && memcmp(magic, "\177ELF", 4) == 0;
    close(fd);
    return ok;
}

/* The marker on the re-executed process: "NAME" when LD_PRELOAD was unset
 * before, "NAME:VALUE" when it held VALUE. */
#define REEXEC CHT_ENV_ALLOCATOR_REEXEC

/* Back to the LD_PRELOAD the user had (nothing chtbench starts inherits ours). */
static void restore_preload(const char *marker)
{
    const char *colon = strchr(marker, ':');
    if (colon)
        setenv("LD_PRELOAD", colon + 1, 1);
    else
        unsetenv("LD_PRELOAD");
    unsetenv(REEXEC);
}

int alloc_apply(const char *requested, char **argv, bool check_only)
{
    const char *marker = cht_env()->allocator_reexec;
    if (marker && !check_only)
        restore_preload(marker);
    if (!requested)
        return 0;
    if (sanitizer_owns_malloc() && strcmp(requested, "system") != 0) {
        fprintf(stderr, "chtbench: --allocator %s: this is a sanitizer build (%s), whose runtime owns malloc: only "
                "--allocator system is accepted\n", requested, CHTBENCH_SANITIZER);
        return EXIT_USAGE;
    }
    const char *have = alloc_detected();
    if (strcmp(have, requested) == 0)
        return 0;
    unsigned k = 0;
    while (k < NLIBS && strcmp(libs[k].name, requested) != 0)
        k++;
    if (marker) {   /* re-executed once already: never again */
        const char *pre = cht_env()->ld_preload;
        fprintf(stderr, "chtbench: --allocator %s: re-executed with LD_PRELOAD=%s, but malloc is served by %s: that "
                "file does not provide %s\n", requested, pre ? pre : "(unset)", have, requested);
        return EXIT_USAGE;
    }
#ifdef HAVE_JEMALLOC
    fprintf(stderr, "chtbench: --allocator %s: this chtbench links jemalloc (-Dallocator=jemalloc), which serves "
            "malloc: build with -Dallocator=system to choose the allocator at run time\n", requested);
    return EXIT_USAGE;
#endif
    if (k == NLIBS) {   /* system, but another allocator serves malloc (LD_PRELOAD from outside) */
        fprintf(stderr, "chtbench: --allocator system: malloc is served by %s (LD_PRELOAD=%s): unset LD_PRELOAD\n",
                have, cht_env()->ld_preload ? cht_env()->ld_preload : "(unset)");
        return EXIT_USAGE;
    }
    char dirs[6][256], path[600] = "", where[1600] = "";
    unsigned n = search_dirs(dirs, 6);
    for (unsigned i = 0; i < n && !path[0]; i++) {
        char p[600];
        snprintf(p, sizeof p, "%.256s/%s", dirs[i], libs[k].file);
        if (is_elf(p))
            snprintf(path, sizeof path, "%s", p);
        size_t w = strlen(where);
        snprintf(where + w, sizeof where - w, "%s%s", i ? ", " : "", dirs[i]);
    }
    if (!path[0]) {
        fprintf(stderr, "chtbench: --allocator %s: %s not found in %s (install %s)\n", requested, libs[k].file, where,
                libs[k].package);
        return EXIT_USAGE;
    }
    if (check_only)
        return 0;
    const char *pre = cht_env()->ld_preload;
    size_t len = strlen(path) + (pre ? strlen(pre) + 1 : 0) + 1;
    char *preload = malloc(len), *mark = malloc(strlen(requested) + (pre ? strlen(pre) + 1 : 0) + 1);
    snprintf(preload, len, "%s%s%s", path, pre && *pre ? ":" : "", pre ? pre : "");
    sprintf(mark, "%s%s%s", requested, pre ? ":" : "", pre ? pre : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv(REEXEC, mark, 1);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "chtbench: --allocator %s: cannot re-execute with LD_PRELOAD=%s: %s\n", requested, preload,
            strerror(errno));
    unsetenv(REEXEC);
    free(preload);
    free(mark);
    return EXIT_FAILED;
}
