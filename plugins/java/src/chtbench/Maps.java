/*
 * Maps.java - the Java side of chtbench's Java maps plugin (plugins/java; shim.c is the C side).
 *
 * Static methods over a table handle (a slot of one array per map kind), called by the shim
 * through JNI once per operation:
 *   jv-chm  java.util.concurrent.ConcurrentHashMap<Long,Long> (the JDK's)
 *   jv-nbhm org.jctools.maps.NonBlockingHashMapLong<Long> (JCTools; Click's lock-free table)
 * insert = putIfAbsent, update = replace (only if present), remove, get. A value may be any 64-bit
 * word (include/cht.h), so get returns ABSENT for "not there", and for a stored ABSENT it notes
 * that in a thread-local flag the shim reads only after an ABSENT answer (takeAbsentWasValue).
 */
package chtbench;

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.jctools.maps.NonBlockingHashMapLong;

public final class Maps {
    /** what get answers for an absent key (shim.c's JV_ABSENT) */
    public static final long ABSENT = Long.MIN_VALUE;
    /** slots per map kind: tables alive at once */
    public static final int SLOTS = 1024;

    @SuppressWarnings("unchecked")
    private static final ConcurrentHashMap<Long, Long>[] CHM = new ConcurrentHashMap[SLOTS];
    @SuppressWarnings("unchecked")
    private static final NonBlockingHashMapLong<Long>[] NBHM = new NonBlockingHashMapLong[SLOTS];
    /* per slot: GC count, GC ms and JIT ms when the table was created (stats report the change) */
    private static final long[][] BASE = new long[2 * SLOTS][];
    /* per slot: when stats last measured the heap by a full GC (0: never) and what it found */
    private static final long[] MEASURED_NS = new long[2 * SLOTS];
    private static final long[] MEASURED_BYTES = new long[2 * SLOTS];
    private static final long[] MEASURED_SIZE = new long[2 * SLOTS];   /* the map's size then */
    /* a full GC costs milliseconds and stats() may be called once per op (the model check asks
     * for full_failures before each insert): measure again only after this long, or when the
     * map's size moved by more than an eighth (the driver's read right after the prefill must not
     * get the measurement its read before the prefill made) */
    private static final long REMEASURE_NS = 100_000_000L;
    /* set by a get that found the value ABSENT; cleared when the shim reads it */
    private static final ThreadLocal<boolean[]> ABSENT_WAS_VALUE = ThreadLocal.withInitial(() -> new boolean[1]);
    private static final List<MemoryPoolMXBean> POOLS = ManagementFactory.getMemoryPoolMXBeans();
    /* heap used after a full GC when the JVM started, before any table (stats' bytes are above it) */
    private static final long HEAP_BASE = heapUsedAfterGc();

    private Maps() {}

    private static int freeSlot(Object[] slots) {
        synchronized (BASE) {
            for (int i = 0; i < SLOTS; i++)
                if (slots[i] == null)
                    return i;
        }
        return -1;
    }

    /** kind 0: jv-chm, 1: jv-nbhm; presized for capacity keys; a handle >= 0, or -1 when all slots are taken */
    public static int create(int kind, int capacity) {
        synchronized (BASE) {
            int slot;
            if (kind == 0) {
                slot = freeSlot(CHM);
                if (slot >= 0)
                    CHM[slot] = new ConcurrentHashMap<>(capacity);
            } else {
                slot = freeSlot(NBHM);
                if (slot >= 0)
                    NBHM[slot] = new NonBlockingHashMapLong<>(Math.max(capacity, 2));
            }
            if (slot >= 0) {
                BASE[kind * SLOTS + slot] = runtimeCounters();
                MEASURED_NS[kind * SLOTS + slot] = 0;
            }
            return slot;
        }
    }

    public static void destroy(int kind, int h) {
        synchronized (BASE) {
            if (kind == 0)
                CHM[h] = null;
            else
                NBHM[h] = null;
            BASE[kind * SLOTS + h] = null;
        }
    }

    private static long answer(Long v) {
        if (v == null)
            return ABSENT;
        long x = v;
        if (x == ABSENT)
            ABSENT_WAS_VALUE.get()[0] = true;
        return x;
    }

    /** after get answered ABSENT: whether that was the stored value (and clears the note) */
    public static boolean takeAbsentWasValue() {
        boolean[] note = ABSENT_WAS_VALUE.get();
        boolean was = note[0];
        note[0] = false;
        return was;
    }

    /* ---- jv-chm ---- */
    public static long chmGet(int h, long k) { return answer(CHM[h].get(k)); }
    public static boolean chmInsert(int h, long k, long v) { return CHM[h].putIfAbsent(k, v) == null; }
    public static boolean chmRemove(int h, long k) { return CHM[h].remove(k) != null; }
    public static boolean chmUpdate(int h, long k, long v) { return CHM[h].replace(k, v) != null; }
    public static long chmSize(int h) { return CHM[h].mappingCount(); }

    /* ---- jv-nbhm ---- */
    public static long nbhmGet(int h, long k) { return answer(NBHM[h].get(k)); }
    public static boolean nbhmInsert(int h, long k, long v) { return NBHM[h].putIfAbsent(k, (Long) v) == null; }
    public static boolean nbhmRemove(int h, long k) { return NBHM[h].remove(k) != null; }
    public static boolean nbhmUpdate(int h, long k, long v) { return NBHM[h].replace(k, (Long) v) != null; }
    public static long nbhmSize(int h) { return NBHM[h].size(); }

    /** what one JNI call costs with nothing behind it (bench_jni_call) */
    public static long probe(long x) { return x + 1; }

    /* ---- stats ---- */
    /* what the heap pools held right after a full GC (their collection usage: not what was
     * allocated since, such as the management beans' own objects) */
    private static long heapUsedAfterGc() {
        System.gc();
        long used = 0;
        for (MemoryPoolMXBean p : POOLS) {
            MemoryUsage u = p.getType() == MemoryType.HEAP ? p.getCollectionUsage() : null;
            if (u != null)
                used += u.getUsed();
        }
        return used;
    }

    /** {GC collections, GC ms, JIT compile ms} since the JVM started */
    private static long[] runtimeCounters() {
        long count = 0, ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(gc.getCollectionCount(), 0);
            ms += Math.max(gc.getCollectionTime(), 0);
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long jitMs = jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
        return new long[] { count, ms, jitMs };
    }

    /**
     * out[0]: heap bytes in use after a full GC above the JVM's own at start (every live Java
     * table's), measured by a full GC when forced (the driver's collection after a repetition),
     * on the table's first call, when the last measurement is REMEASURE_NS old or the map's size
     * moved by more than an eighth since, else the last measurement; out[1..3]: GC collections, GC ms and JIT compile ms since the table was
     * created, the full GCs of these measurements not counted; out[4]: the heap's maximum (-Xmx).
     */
    public static synchronized void stats(int kind, int h, boolean force, long[] out) {
        int slot = kind * SLOTS + h;
        long[] base = BASE[slot];
        long now = System.nanoTime();
        long size = kind == 0 ? chmSize(h) : nbhmSize(h);
        long moved = Math.abs(size - MEASURED_SIZE[slot]);
        if (force || MEASURED_NS[slot] == 0 || now - MEASURED_NS[slot] >= REMEASURE_NS ||
            moved > MEASURED_SIZE[slot] / 8) {
            MEASURED_SIZE[slot] = size;
            long[] before = runtimeCounters();
            MEASURED_BYTES[slot] = Math.max(heapUsedAfterGc() - HEAP_BASE, 0);
            MEASURED_NS[slot] = Math.max(System.nanoTime(), 1);
            /* the GC of this measurement is not the table's: move the base past it */
            long[] after = runtimeCounters();
            if (base != null) {
                base[0] += after[0] - before[0];
                base[1] += after[1] - before[1];
            }
        }
        long[] counters = runtimeCounters();
        out[0] = MEASURED_BYTES[slot];
        for (int i = 0; i < 3; i++)
            out[1 + i] = base == null ? counters[i] : counters[i] - base[i];
        out[4] = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax();
    }
}
