/*
 * shim.c - the C side of chtbench's Java maps plugin (plugins/java; src/chtbench/Maps.java has the
 * Java side): jv-chm (java.util.concurrent.ConcurrentHashMap<Long,Long>) and jv-nbhm (JCTools'
 * NonBlockingHashMapLong<Long>, Cliff Click's lock-free table as JCTools ships it), each op a
 * JNI call of one static method of chtbench.Maps.
 *
 * The JVM: one per process, started by the JNI invocation API on the first create() (a JVM cannot
 * be created again in a process after DestroyJavaVM, so it is never destroyed and later tables
 * reuse it). Its flags come from the first table's options heap and gc; a later table asking for
 * others is refused (docs/plugins.md "Java maps"). Threads: thread_init attaches the driver's worker
 * (as a daemon, so the JVM never waits for it) and thread_exit detaches it; a call on a thread not
 * attached (prefill, the final check, `chtbench check`'s threads) attaches it on demand, and a
 * pthread key's destructor detaches it when the thread ends. The per-op path is a thread-local
 * load, the JNI call and an exception check: nothing allocated on the C side.
 *
 * The structs are laid out with designated initializers against include/, so an ABI that appends
 * members needs only a rebuild.
 */
#include "cht.h"
#include "cht_plugin.h"

#include <dlfcn.h>
#include <jni.h>
#include <libgen.h>
#include <pthread.h>
#include <unistd.h>

#ifndef JV_JDK_VERSION
#define JV_JDK_VERSION "?"
#endif
#ifndef JV_JCTOOLS_JAR
#define JV_JCTOOLS_JAR "jctools-core.jar"
#endif
#define JV_MAPS_JAR "chtbench-java.jar"
#ifndef JV_JCTOOLS_VERSION
#define JV_JCTOOLS_VERSION "?"
#endif

enum { KIND_CHM = 0, KIND_NBHM = 1 };
static const char *const kind_names[] = { "jv-chm", "jv-nbhm" };

/* chtbench.Maps.ABSENT: get's answer for "not there" (a stored ABSENT is told apart by takeAbsentWasValue) */
#define JV_ABSENT (1ull << 63)

static const char *const gc_names[] = { "g1", "parallel", "serial", NULL };
static const char *const gc_flags[] = { "-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseSerialGC" };
#define JV_HEAP_DEFAULT (1ull << 30)
#define JV_HEAP_MIN (16ull << 20)
#define JV_HEAP_MAX (1024ull << 30)
#define JV_BYTES_PER_KEY 100   /* heap a key takes, rounded up from the measured (create's check) */

static const struct cht_option_spec jv_options[] = {
    { "heap", "16m..1024g, digits with k, m or g: the JVM's heap, -Xms = -Xmx (default 1g); one JVM per process, "
              "so every Java table of a process takes the first one's" },
    { "gc", "g1|parallel|serial: the JVM's collector (default g1, the JDK's own choice on a server-class machine); "
            "one per process, as heap" },
    { NULL, NULL },
};

/* ---- the one JVM ---- */
static pthread_mutex_t jvm_lock = PTHREAD_MUTEX_INITIALIZER;
static JavaVM *jvm;                 /* set once, never destroyed */
static char jvm_error[512];         /* why it could not start: every later create() repeats it */
static uint64_t jvm_heap;           /* its flags */
static unsigned jvm_gc;
static jclass maps_class;           /* global ref */
static jclass oom_class;            /* java.lang.OutOfMemoryError, global ref: named without allocating */
static jmethodID m_create, m_destroy, m_take_absent, m_stats, m_probe;
static jmethodID m_get[2], m_insert[2], m_remove[2], m_update[2], m_size[2];

static __thread JNIEnv *tls_env;    /* this thread's, when attached */
static __thread bool tls_ours;      /* attached by this shim (so detached by it) */
static __thread unsigned tls_inits; /* thread_init calls not yet matched by thread_exit */
static pthread_key_t detach_key;
static pthread_once_t detach_key_once = PTHREAD_ONCE_INIT;

/* the class path: CHTBENCH_JAVA_CLASSPATH, else the two jars beside this library */
static void class_path(char *buf, size_t len)
{
    const char *env = getenv("CHTBENCH_JAVA_CLASSPATH");
    if (env) {
        snprintf(buf, len, "%s", env);
        return;
    }
    Dl_info info;
    char dir[4096] = ".";
    if (dladdr((void *)class_path, &info) && info.dli_fname) {
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        char *d = dirname(dir);
        memmove(dir, d, strlen(d) + 1);
    }
    snprintf(buf, len, "%s/" JV_MAPS_JAR ":%s/" JV_JCTOOLS_JAR, dir, dir);
}

/* A thread that ends attached is detached here (pthread key destructor; HotSpot keeps its own
 * thread pointer valid through the other keys' destructors for this). */
static void detach_at_thread_end(void *unused)
{
    (void)unused;
    JNIEnv *e;
    if (jvm && (*jvm)->GetEnv(jvm, (void **)&e, JNI_VERSION_10) == JNI_OK)
        (*jvm)->DetachCurrentThread(jvm);
}

static void make_detach_key(void)
{
    if (pthread_key_create(&detach_key, detach_at_thread_end) != 0) {
        fprintf(stderr, "chtbench: java plugin: pthread_key_create failed\n");
        abort();
    }
}

/* Attaches this thread (once; the JVM's creator is attached already). */
static JNIEnv *attach_slow(void)
{
    JNIEnv *e = NULL;
    if ((*jvm)->GetEnv(jvm, (void **)&e, JNI_VERSION_10) == JNI_OK) {
        tls_env = e;   /* attached by someone else: theirs to detach */
        return e;
    }
    JavaVMAttachArgs args = { .version = JNI_VERSION_10, .name = "chtbench", .group = NULL };
    if ((*jvm)->AttachCurrentThreadAsDaemon(jvm, (void **)&e, &args) != JNI_OK) {
        fprintf(stderr, "chtbench: java plugin: AttachCurrentThreadAsDaemon failed\n");
        abort();
    }
    pthread_once(&detach_key_once, make_detach_key);
    pthread_setspecific(detach_key, (void *)1);
    tls_env = e;
    tls_ours = true;
    return e;
}

static inline JNIEnv *jv_env(void)
{
    JNIEnv *e = tls_env;
    if (__builtin_expect(e == NULL, 0))
        e = attach_slow();
    return e;
}

static void detach_now(void)
{
    if (!tls_ours)
        return;
    (*jvm)->DetachCurrentThread(jvm);
    pthread_setspecific(detach_key, NULL);
    tls_env = NULL;
    tls_ours = false;
}

/* A Java exception in an op is a broken invariant: its line, then abort. */
__attribute__((noinline, cold)) static void java_threw(JNIEnv *e, int kind, const char *op)
{
    jthrowable ex = (*e)->ExceptionOccurred(e);
    (*e)->ExceptionClear(e);
    char msg[256] = "";
    if (oom_class && (*e)->IsInstanceOf(e, ex, oom_class))
        snprintf(msg, sizeof msg, "java.lang.OutOfMemoryError (a larger heap= may help)");
    jclass obj = (*e)->FindClass(e, "java/lang/Object");
    jmethodID to_string = obj ? (*e)->GetMethodID(e, obj, "toString", "()Ljava/lang/String;") : NULL;
    jstring s = to_string ? (jstring)(*e)->CallObjectMethod(e, ex, to_string) : NULL;
    const char *c = s ? (*e)->GetStringUTFChars(e, s, NULL) : NULL;
    if (c && !msg[0])
        snprintf(msg, sizeof msg, "%s", c);
    (*e)->ExceptionClear(e);   /* toString itself may have thrown (out of heap) */
    fprintf(stderr, "chtbench: %s: %s threw %s (heap=%llum gc=%s)\n", kind_names[kind], op, msg,
            (unsigned long long)(jvm_heap >> 20), gc_names[jvm_gc]);
    abort();   /* the Java side failed (out of heap, a bug): no JNI call may follow, no answer is right */
}

static inline void check_java(JNIEnv *e, int kind, const char *op)
{
    if (__builtin_expect((*e)->ExceptionCheck(e), 0))
        java_threw(e, kind, op);
}

/* heap=SIZE: digits with an optional k, m or g */
static bool parse_heap(const char *s, uint64_t *out)
{
    if (!s || !(s[0] >= '0' && s[0] <= '9'))
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift)
        end++;
    if (errno || *end || v > (JV_HEAP_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return *out >= JV_HEAP_MIN && *out <= JV_HEAP_MAX;
}

static bool find_methods(JNIEnv *e)
{
    struct { jmethodID *id; const char *name, *sig; } ms[] = {
        { &m_create, "create", "(II)I" }, { &m_destroy, "destroy", "(II)V" },
        { &m_take_absent, "takeAbsentWasValue", "()Z" }, { &m_stats, "stats", "(IIZ[J)V" },
        { &m_probe, "probe", "(J)J" },
        { &m_get[0], "chmGet", "(IJ)J" }, { &m_insert[0], "chmInsert", "(IJJ)Z" },
        { &m_remove[0], "chmRemove", "(IJ)Z" }, { &m_update[0], "chmUpdate", "(IJJ)Z" },
        { &m_size[0], "chmSize", "(I)J" },
        { &m_get[1], "nbhmGet", "(IJ)J" }, { &m_insert[1], "nbhmInsert", "(IJJ)Z" },
        { &m_remove[1], "nbhmRemove", "(IJ)Z" }, { &m_update[1], "nbhmUpdate", "(IJJ)Z" },
        { &m_size[1], "nbhmSize", "(I)J" },
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        *ms[i].id = (*e)->GetStaticMethodID(e, maps_class, ms[i].name, ms[i].sig);
        if (!*ms[i].id)
            return false;
    }
    return true;
}

/* Starts the JVM (jvm_lock held); on failure jvm_error says why, for good. */
static void start_jvm(uint64_t heap, unsigned gc)
{
    char cp[8192], cp_opt[8300], xmx[64], xms[64];
    class_path(cp, sizeof cp);
    snprintf(cp_opt, sizeof cp_opt, "-Djava.class.path=%s", cp);
    snprintf(xmx, sizeof xmx, "-Xmx%llu", (unsigned long long)heap);
    snprintf(xms, sizeof xms, "-Xms%llu", (unsigned long long)heap);
    JavaVMOption opts[] = {
        { .optionString = cp_opt },
        { .optionString = xmx },
        { .optionString = xms },
        { .optionString = (char *)gc_flags[gc] },
        { .optionString = "-Xrs" },                /* chtbench keeps SIGINT/SIGTERM/SIGQUIT/SIGHUP */
        { .optionString = "-XX:-UsePerfData" },    /* no hsperfdata file in /tmp */
    };
    JavaVMInitArgs args = { .version = JNI_VERSION_10, .nOptions = (jint)(sizeof opts / sizeof opts[0]),
                            .options = opts, .ignoreUnrecognized = JNI_FALSE };
    JNIEnv *e = NULL;
    jint rc = JNI_CreateJavaVM(&jvm, (void **)&e, &args);
    if (rc != JNI_OK) {
        jvm = NULL;
        snprintf(jvm_error, sizeof jvm_error, "the JVM did not start (JNI_CreateJavaVM returned %d)", (int)rc);
        return;
    }
    /* the creating thread is attached: ours to detach at its end, as any */
    tls_env = e;
    tls_ours = true;
    pthread_once(&detach_key_once, make_detach_key);
    pthread_setspecific(detach_key, (void *)1);
    jvm_heap = heap;
    jvm_gc = gc;
    jclass oom = (*e)->FindClass(e, "java/lang/OutOfMemoryError");
    oom_class = oom ? (jclass)(*e)->NewGlobalRef(e, oom) : NULL;
    jclass c = (*e)->FindClass(e, "chtbench/Maps");
    if (c)
        maps_class = (jclass)(*e)->NewGlobalRef(e, c);
    if (!c || !maps_class || !find_methods(e)) {
        (*e)->ExceptionClear(e);
        snprintf(jvm_error, sizeof jvm_error, "class chtbench.Maps (or JCTools) not found in the class path %.400s", cp);
        return;
    }
    (*e)->DeleteLocalRef(e, c);
}

static const char *java_env_flags(void)
{
    if (getenv("JAVA_TOOL_OPTIONS"))
        return "JAVA_TOOL_OPTIONS";
    if (getenv("_JAVA_OPTIONS"))
        return "_JAVA_OPTIONS";
    return NULL;
}

static bool jv_available(char *why, size_t len)
{
    /* measured (docs/plugins.md "Java maps"): under TSan the uninstrumented libjvm.so's own synchronisation
     * is reported as races (exit 66); under ASan, LeakSanitizer (on in scripts/test) fails every process
     * at exit: its tracer crashes stopping the JVM's threads, or it reports the JVM's allocations */
    if (dlsym(RTLD_DEFAULT, "__tsan_init")) {
        snprintf(why, len, "not in a ThreadSanitizer build: TSan reports the JVM's own synchronisation "
                           "inside libjvm.so as races (docs/plugins.md \"Java maps\"); use the release build");
        return false;
    }
    if (dlsym(RTLD_DEFAULT, "__asan_init")) {
        snprintf(why, len, "not in an AddressSanitizer build: LeakSanitizer fails the process at exit (its "
                           "tracer crashes on the JVM's threads; the JVM's allocations are never freed; "
                           "docs/plugins.md \"Java maps\"); use the release build");
        return false;
    }
    const char *flags = java_env_flags();
    if (flags) {
        snprintf(why, len, "%s is set: the JVM would take flags the row does not record (unset it; use "
                           "the heap and gc options)", flags);
        return false;
    }
    pthread_mutex_lock(&jvm_lock);
    bool failed = jvm_error[0] != 0;
    if (failed)
        snprintf(why, len, "%s", jvm_error);
    pthread_mutex_unlock(&jvm_lock);
    if (failed)
        return false;
    if (!jvm) {
        char cp[8192];
        class_path(cp, sizeof cp);
        for (char *save = NULL, *p = strtok_r(cp, ":", &save); p; p = strtok_r(NULL, ":", &save))
            if (access(p, R_OK) != 0) {
                snprintf(why, len, "class path entry %s: %s (the jars are built by meson with the JDK; "
                                   "JCTools is fetched by scripts/install-deps)", p, strerror(errno));
                return false;
            }
    }
    return true;
}

static void *jv_create(int kind, const struct cht_config *cfg, char *err, size_t len)
{
    const char *name = kind_names[kind];
    if (cfg->value_size > 8) {
        snprintf(err, len, "--table %s: values of %zu bytes: only 8-byte values", name, cfg->value_size);
        return NULL;
    }
    uint64_t heap = JV_HEAP_DEFAULT;
    unsigned gc = 0;
    const char *hs = cht_option_get(cfg->options, "heap");
    if (hs && !parse_heap(hs, &heap)) {
        snprintf(err, len, "--table %s: option heap=%s: expected a size in 16m..1024g (digits with k, m or g)", name, hs);
        return NULL;
    }
    if (!cht_option_enum(cfg->options, name, "gc", gc_names, &gc, err, len))
        return NULL;
    if (!jv_available(err, len)) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, len, "--table %s: %s", name, why);
        return NULL;
    }
    pthread_mutex_lock(&jvm_lock);
    if (!jvm && !jvm_error[0])
        start_jvm(heap, gc);
    bool clash = jvm && !jvm_error[0] && (heap != jvm_heap || gc != jvm_gc);
    if (jvm_error[0])
        snprintf(err, len, "--table %s: %s", name, jvm_error);
    else if (clash)
        snprintf(err, len, "--table %s: heap=%llum gc=%s: this process's JVM runs with heap=%llum gc=%s "
                 "(one JVM per process: give every Java table the same heap and gc)", name,
                 (unsigned long long)(heap >> 20), gc_names[gc], (unsigned long long)(jvm_heap >> 20),
                 gc_names[jvm_gc]);
    bool ok = !jvm_error[0] && !clash;
    pthread_mutex_unlock(&jvm_lock);
    if (!ok)
        return NULL;
    /* measured: 89 (jv-chm) and 50-83 (jv-nbhm) bytes a key (docs/measurements/java-maps.md); a heap
     * too small for the prefill would end the run with an OutOfMemoryError midway */
    double need = (double)cfg->initial * JV_BYTES_PER_KEY;
    if (need > (double)jvm_heap * 0.8) {
        snprintf(err, len, "--table %s: -i %zu keys need about %.0f MiB of Java heap (about %d bytes a key); "
                 "the JVM's heap=%llum is too small (give heap= at least %.0fm to every Java table)", name,
                 cfg->initial, need / (1 << 20), JV_BYTES_PER_KEY, (unsigned long long)(jvm_heap >> 20),
                 need / 0.8 / (1 << 20) + 1);
        return NULL;
    }
    double cap = (double)cfg->initial;
    if (cfg->density > 1.0)
        cap /= cfg->density;   /* "tiny start": fuller than the map can be, so it must grow */
    if (cap > (double)(1 << 30))
        cap = (double)(1 << 30);
    JNIEnv *e = jv_env();
    jint h = (*e)->CallStaticIntMethod(e, maps_class, m_create, (jint)kind, (jint)cap);
    check_java(e, kind, "create");
    if (h < 0) {
        snprintf(err, len, "--table %s: too many tables alive at once", name);
        return NULL;
    }
    return (void *)(uintptr_t)(h + 1);
}

#define H(t) ((jint)((uintptr_t)(t) - 1))

static void jv_destroy(int kind, void *t)
{
    JNIEnv *e = jv_env();
    (*e)->CallStaticVoidMethod(e, maps_class, m_destroy, (jint)kind, H(t));
    check_java(e, kind, "destroy");
}

static void jv_thread_init(void *t, unsigned tid)
{
    (void)t, (void)tid;
    jv_env();
    tls_inits++;
}

static void jv_thread_exit(void *t, unsigned tid)
{
    (void)t, (void)tid;
    if (tls_inits && --tls_inits == 0)
        detach_now();
}

static inline __attribute__((always_inline)) bool jv_get(int kind, void *t, cht_key_t k, cht_val_t *v)
{
    JNIEnv *e = jv_env();
    jvalue a[2] = { { .i = H(t) }, { .j = (jlong)k } };
    jlong x = (*e)->CallStaticLongMethodA(e, maps_class, m_get[kind], a);
    check_java(e, kind, "get");
    if (__builtin_expect((uint64_t)x == JV_ABSENT, 0)) {
        bool stored = (*e)->CallStaticBooleanMethodA(e, maps_class, m_take_absent, NULL);
        check_java(e, kind, "get");
        if (!stored)
            return false;
    }
    *v = (cht_val_t)x;
    return true;
}

static inline __attribute__((always_inline)) bool jv_write(int kind, jmethodID m, void *t, cht_key_t k,
                                                           cht_val_t v, const char *op)
{
    JNIEnv *e = jv_env();
    jvalue a[3] = { { .i = H(t) }, { .j = (jlong)k }, { .j = (jlong)v } };
    jboolean r = (*e)->CallStaticBooleanMethodA(e, maps_class, m, a);
    check_java(e, kind, op);
    return r;
}

static inline __attribute__((always_inline)) bool jv_remove(int kind, void *t, cht_key_t k)
{
    JNIEnv *e = jv_env();
    jvalue a[2] = { { .i = H(t) }, { .j = (jlong)k } };
    jboolean r = (*e)->CallStaticBooleanMethodA(e, maps_class, m_remove[kind], a);
    check_java(e, kind, "remove");
    return r;
}

static size_t jv_size(int kind, void *t)
{
    JNIEnv *e = jv_env();
    jlong n = (*e)->CallStaticLongMethod(e, maps_class, m_size[kind], H(t));
    check_java(e, kind, "size");
    return (size_t)n;
}

/* bytes: the heap in use after a full GC above the JVM's own at start (every live Java table's; at
 * most 100 ms old, taken at a size within an eighth of the map's); counters: the JVM's GC and JIT work since the table was created, and its heap limit */
static void jv_stats(int kind, void *t, struct cht_stats *s)
{
    JNIEnv *e = jv_env();
    jlong out[5] = { 0 };
    jlongArray arr = (*e)->NewLongArray(e, 5);
    check_java(e, kind, "stats");
    /* a full GC only for the driver's collection after a repetition (counter channel set), a table's
     * first call, when the last measurement is 100 ms old or the map's size moved by more than an
     * eighth since (Maps.stats): the model check calls stats() before every insert */
    jboolean force = s->counter != NULL;
    (*e)->CallStaticVoidMethod(e, maps_class, m_stats, (jint)kind, H(t), force, arr);
    check_java(e, kind, "stats");
    (*e)->GetLongArrayRegion(e, arr, 0, 5, out);
    (*e)->DeleteLocalRef(e, arr);
    s->bytes = (size_t)out[0];
    cht_stats_counter(s, "jvm_gc_count", (double)out[1]);
    cht_stats_counter(s, "jvm_gc_ms", (double)out[2]);
    cht_stats_counter(s, "jvm_jit_ms", (double)out[3]);
    cht_stats_counter(s, "jvm_heap_max_bytes", (double)out[4]);
}

/* What one JNI call of a static method costs with nothing behind it (bench_jni_call.c); the JVM
 * must be started (by a create()). */
CHT_PLUGIN_EXPORT uint64_t cht_java_probe(uint64_t x);
CHT_PLUGIN_EXPORT uint64_t cht_java_probe(uint64_t x)
{
    JNIEnv *e = jv_env();
    jvalue a[1] = { { .j = (jlong)x } };
    jlong r = (*e)->CallStaticLongMethodA(e, maps_class, m_probe, a);
    check_java(e, 0, "probe");
    return (uint64_t)r;
}

/* ---- jv-chm ---- */
static void *chm_create(const struct cht_config *cfg, char *err, size_t len) { return jv_create(KIND_CHM, cfg, err, len); }
static void chm_destroy(void *t) { jv_destroy(KIND_CHM, t); }
static bool chm_get(void *t, cht_key_t k, cht_val_t *v) { return jv_get(KIND_CHM, t, k, v); }
static bool chm_insert(void *t, cht_key_t k, cht_val_t v) { return jv_write(KIND_CHM, m_insert[KIND_CHM], t, k, v, "insert"); }
static bool chm_remove(void *t, cht_key_t k) { return jv_remove(KIND_CHM, t, k); }
static bool chm_update(void *t, cht_key_t k, cht_val_t v) { return jv_write(KIND_CHM, m_update[KIND_CHM], t, k, v, "update"); }
static size_t chm_size(void *t) { return jv_size(KIND_CHM, t); }
static void chm_stats(void *t, struct cht_stats *s) { jv_stats(KIND_CHM, t, s); }

/* ---- jv-nbhm ---- */
static void *nbhm_create(const struct cht_config *cfg, char *err, size_t len) { return jv_create(KIND_NBHM, cfg, err, len); }
static void nbhm_destroy(void *t) { jv_destroy(KIND_NBHM, t); }
static bool nbhm_get(void *t, cht_key_t k, cht_val_t *v) { return jv_get(KIND_NBHM, t, k, v); }
static bool nbhm_insert(void *t, cht_key_t k, cht_val_t v) { return jv_write(KIND_NBHM, m_insert[KIND_NBHM], t, k, v, "insert"); }
static bool nbhm_remove(void *t, cht_key_t k) { return jv_remove(KIND_NBHM, t, k); }
static bool nbhm_update(void *t, cht_key_t k, cht_val_t v) { return jv_write(KIND_NBHM, m_update[KIND_NBHM], t, k, v, "update"); }
static size_t nbhm_size(void *t) { return jv_size(KIND_NBHM, t); }
static void nbhm_stats(void *t, struct cht_stats *s) { jv_stats(KIND_NBHM, t, s); }

static const struct cht_ops jv_chm = {
    .name = "jv-chm",
    .summary = "JDK " JV_JDK_VERSION " java.util.concurrent.ConcurrentHashMap<Long,Long> (boxed keys and values), "
               "a JNI call per op; JVM heap=1g gc=g1 unless the options say otherwise",
    .caps = CHT_CAP_RESIZE | CHT_CAP_UPDATE,
    .options = jv_options,
    .available = jv_available,
    .create = chm_create,
    .destroy = chm_destroy,
    .thread_init = jv_thread_init,
    .thread_exit = jv_thread_exit,
    .get = chm_get,
    .insert = chm_insert,
    .remove = chm_remove,
    .update = chm_update,
    .size = chm_size,
    .stats = chm_stats,
};

static const struct cht_ops jv_nbhm = {
    .name = "jv-nbhm",
    .summary = "JCTools " JV_JCTOOLS_VERSION " NonBlockingHashMapLong<Long> (Click's lock-free table; boxed values) on JDK "
               JV_JDK_VERSION ", a JNI call per op; JVM heap=1g gc=g1 unless the options say otherwise",
    .caps = CHT_CAP_RESIZE | CHT_CAP_UPDATE,
    .options = jv_options,
    .available = jv_available,
    .create = nbhm_create,
    .destroy = nbhm_destroy,
    .thread_init = jv_thread_init,
    .thread_exit = jv_thread_exit,
    .get = nbhm_get,
    .insert = nbhm_insert,
    .remove = nbhm_remove,
    .update = nbhm_update,
    .size = nbhm_size,
    .stats = nbhm_stats,
};

static const struct cht_ops *const jv_tables[] = { &jv_chm, &jv_nbhm, NULL };

static const struct cht_plugin jv_plugin = {
    .abi_version = CHT_ABI_VERSION,
    .name = "java",
    .tables = jv_tables,
    .locks = NULL,
    .sizes = CHT_ABI_SIZES,
};

const struct cht_plugin *cht_plugin(void)
{
    return &jv_plugin;
}
