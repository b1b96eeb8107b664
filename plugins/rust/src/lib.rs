//! chtbench plugin: the Rust ecosystem's concurrent maps behind struct cht_ops
//! (include/cht.h), exported through cht_plugin() (include/cht_plugin.h).
//! Tables: rs-dashmap, rs-papaya, rs-scc, rs-std-mutex, rs-flurry, rs-contrie,
//! rs-scc-index (maps.rs says which calls each op makes).
//!
//! No panic crosses the C boundary: every entry point runs under catch_unwind. A caught
//! panic fails the operation (false / NULL / 0), is counted, shows in stats().alloc_failures
//! (the ABI's only failure counter a table may raise on its own) and is reported on
//! stderr once, when the table is destroyed. Allocation failure is not a panic in Rust:
//! it aborts the process (std's handle_alloc_error), so create() refuses, up front, a
//! capacity larger than the machine's memory.
//! stats.bytes is an estimate from each crate's capacity and its version's layout (maps.rs), as the
//! crates do not report their memory; checked against the driver's RSS columns in
//! docs/measurements/rust-maps.md.
mod abi;
mod maps;

use abi::*;
use maps::{ChtBuild, Contrie, Dash, Flurry, Map, Papaya, Scc, SccIndex, StdMutex, HASH_NAMES};
use std::ffi::CStr;
use std::os::raw::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

struct Handle<M: Map> {
    map: M,
    name: &'static str,
    panics: AtomicU64,
    panic_key: u64, // option panic_key (test hook; 0 = none: keys are >= 1)
}

impl<M: Map> Handle<M> {
    #[inline(always)]
    fn guard(&self, k: u64) {
        if k == self.panic_key {
            panic!("{}: panic_key={} (test hook)", self.name, k);
        }
    }
}

/// Runs f; a panic becomes `failed` and is counted on the table.
#[inline(always)]
fn shielded<M: Map, R>(t: Table, failed: R, f: impl FnOnce(&Handle<M>) -> R) -> R {
    let h = unsafe { &*(t as *const Handle<M>) };
    match catch_unwind(AssertUnwindSafe(|| f(h))) {
        Ok(r) => r,
        Err(_) => {
            h.panics.fetch_add(1, Relaxed);
            failed
        }
    }
}

fn set_err(err: *mut c_char, len: usize, msg: &str) {
    if err.is_null() || len == 0 {
        return;
    }
    let n = msg.len().min(len - 1);
    unsafe {
        std::ptr::copy_nonoverlapping(msg.as_ptr(), err as *mut u8, n);
        *err.add(n) = 0;
    }
}

fn phys_bytes() -> u64 {
    extern "C" {
        fn sysconf(name: i32) -> i64;
    }
    // Linux: _SC_PAGESIZE = 30, _SC_PHYS_PAGES = 85
    let (p, n) = unsafe { (sysconf(30), sysconf(85)) };
    if p > 0 && n > 0 {
        (p as u64).saturating_mul(n as u64)
    } else {
        u64::MAX
    }
}

unsafe fn cstr<'a>(p: *const c_char) -> &'a str {
    if p.is_null() {
        ""
    } else {
        CStr::from_ptr(p).to_str().unwrap_or("\u{fffd}")
    }
}

/// Reads cfg->options (keys already checked by the driver against OPTIONS); values judged here.
unsafe fn parse_options(name: &str, cfg: &cht_config) -> Result<(ChtBuild, u64), String> {
    let mut hash = 0usize;
    let mut panic_key = 0u64;
    let mut o = cfg.options;
    while !o.is_null() && !(*o).key.is_null() {
        let (key, val) = (cstr((*o).key), cstr((*o).val));
        match key {
            "hash" => match HASH_NAMES.iter().position(|n| *n == val) {
                Some(i) => hash = i,
                None => {
                    return Err(format!(
                        "--table {}: option hash={}: expected one of {}",
                        name,
                        val,
                        HASH_NAMES.join("|")
                    ))
                }
            },
            "panic_key" => match val.parse::<u64>() {
                Ok(k) if val.bytes().all(|b| b.is_ascii_digit()) && (1..=(1u64 << 62)).contains(&k) => {
                    panic_key = k
                }
                _ => {
                    return Err(format!(
                        "--table {}: option panic_key={}: expected an integer in 1..{}",
                        name,
                        val,
                        1u64 << 62
                    ))
                }
            },
            _ => return Err(format!("--table {}: unknown option {}", name, key)),
        }
        o = o.add(1);
    }
    Ok((ChtBuild::by_index(hash), panic_key))
}

fn create_impl<M: Map>(name: &'static str, cfg: *const cht_config) -> Result<Box<Handle<M>>, String> {
    if cfg.is_null() {
        return Err(format!("--table {}: no config", name));
    }
    let cfg = unsafe { &*cfg };
    if cfg.value_size > 8 {
        return Err(format!("--table {}: values of {} bytes: only 8-byte values", name, cfg.value_size));
    }
    let (hash, panic_key) = unsafe { parse_options(name, cfg)? };
    let mut cap = cfg.initial as f64;
    if cfg.density > 1.0 {
        cap /= cfg.density; // "tiny start": fuller than the map can be, so it must grow
    }
    // about 32 bytes a key (key, value, control bytes, load factor): refuse what cannot fit
    // (Rust aborts the process when an allocation fails)
    if cap * 32.0 > phys_bytes() as f64 {
        return Err(format!("out of memory ({} keys need more than this machine's memory)", cfg.initial));
    }
    Ok(Box::new(Handle { map: M::new(cap as usize, hash), name, panics: AtomicU64::new(0), panic_key }))
}

extern "C" fn create<M: Map, const N: usize>(cfg: *const cht_config, err: *mut c_char, len: usize) -> Table {
    let name = NAMES[N];
    match catch_unwind(|| create_impl::<M>(name, cfg)) {
        Ok(Ok(b)) => Box::into_raw(b) as Table,
        Ok(Err(msg)) => {
            set_err(err, len, &msg);
            std::ptr::null_mut()
        }
        Err(_) => {
            set_err(err, len, &format!("--table {}: create panicked", name));
            std::ptr::null_mut()
        }
    }
}

extern "C" fn destroy<M: Map>(t: Table) {
    if t.is_null() {
        return;
    }
    let h = unsafe { Box::from_raw(t as *mut Handle<M>) };
    let (name, panics) = (h.name, h.panics.load(Relaxed));
    // dropping a map runs only the crate's own code; a panic there is caught and leaks the rest
    let _ = catch_unwind(AssertUnwindSafe(move || drop(h)));
    if panics > 0 {
        eprintln!("{}: {} panics caught (each failed its operation)", name, panics);
    }
}

extern "C" fn get<M: Map>(t: Table, k: u64, v: *mut u64) -> bool {
    shielded::<M, bool>(t, false, |h| {
        h.guard(k);
        match h.map.get(k) {
            Some(x) => {
                if !v.is_null() {
                    unsafe { *v = x };
                }
                true
            }
            None => false,
        }
    })
}

extern "C" fn insert<M: Map>(t: Table, k: u64, v: u64) -> bool {
    shielded::<M, bool>(t, false, |h| {
        h.guard(k);
        h.map.insert(k, v)
    })
}

extern "C" fn remove<M: Map>(t: Table, k: u64) -> bool {
    shielded::<M, bool>(t, false, |h| {
        h.guard(k);
        h.map.remove(k)
    })
}

extern "C" fn update<M: Map>(t: Table, k: u64, v: u64) -> bool {
    shielded::<M, bool>(t, false, |h| {
        h.guard(k);
        h.map.update(k, v)
    })
}

extern "C" fn size<M: Map>(t: Table) -> usize {
    shielded::<M, usize>(t, 0, |h| h.map.len())
}

extern "C" fn stats<M: Map>(t: Table, s: *mut cht_stats) {
    if s.is_null() {
        return;
    }
    let buckets = shielded::<M, usize>(t, 0, |h| h.map.buckets());
    let bytes = shielded::<M, usize>(t, 0, |h| h.map.bytes() + std::mem::size_of::<Handle<M>>());
    let h = unsafe { &*(t as *const Handle<M>) };
    unsafe {
        (*s).bytes = bytes;
        (*s).buckets = buckets;
        (*s).alloc_failures = h.panics.load(Relaxed);
        cht_stats_counter(&*s, c"panics", h.panics.load(Relaxed) as f64);
    }
}

const NAMES: [&str; 7] =
    ["rs-dashmap", "rs-papaya", "rs-scc", "rs-std-mutex", "rs-flurry", "rs-contrie", "rs-scc-index"];

static OPTIONS: [cht_option_spec; 3] = [
    cht_option_spec {
        key: c"hash".as_ptr(),
        help: c"fold|mix|identity|sip: fold (default), mix, identity as include/cht_hash.h; sip: std's RandomState (the crates' default)".as_ptr(),
    },
    cht_option_spec {
        key: c"panic_key".as_ptr(),
        help: c"TEST ONLY: every operation on this key panics (the catch_unwind path; the op fails)".as_ptr(),
    },
    cht_option_spec { key: std::ptr::null(), help: std::ptr::null() },
];

macro_rules! ops {
    ($ty:ty, $n:expr, $name:expr, $summary:expr) => {
        cht_ops {
            name: $name.as_ptr(),
            summary: $summary.as_ptr(),
            caps: CHT_CAP_RESIZE | CHT_CAP_UPDATE,
            options: &OPTIONS as *const cht_option_spec,
            available: None,
            create: Some(create::<$ty, $n>),
            destroy: Some(destroy::<$ty>),
            thread_init: None,
            thread_exit: None,
            get: Some(get::<$ty>),
            insert: Some(insert::<$ty>),
            remove: Some(remove::<$ty>),
            update: Some(update::<$ty>),
            size: Some(size::<$ty>),
            stats: Some(stats::<$ty>),
            get_batch: None,
            probe_lines: None,
            default_lock: std::ptr::null(),
            pipe_start: None,
            pipe_step: None,
            get_bytes: None,
            insert_bytes: None,
            remove_bytes: None,
            update_bytes: None,
        }
    };
}

static DASH: cht_ops = ops!(Dash, 0, c"rs-dashmap", c"Rust dashmap 6.2.1 DashMap: sharded hashbrown tables, a RwLock per shard");
static PAPAYA: cht_ops = ops!(Papaya, 1, c"rs-papaya", c"Rust papaya 0.2.5 HashMap: lock-free open addressing, incremental resize, seize reclamation");
static SCC: cht_ops = ops!(Scc, 2, c"rs-scc", c"Rust scc 3.8.8 HashMap: bucket locks, epoch reclamation (sdd)");
static STD_MUTEX: cht_ops = ops!(StdMutex, 3, c"rs-std-mutex", c"Rust std HashMap (hashbrown) under one std::sync::Mutex: the Rust baseline");

static FLURRY: cht_ops = ops!(Flurry, 4, c"rs-flurry", c"Rust flurry 0.5.2 HashMap: Java's ConcurrentHashMap ported, bin locks, lock-free reads, seize reclamation");
static CONTRIE: cht_ops = ops!(Contrie, 5, c"rs-contrie", c"Rust contrie 0.1.4 ConMap: lock-free hash trie (16-way nodes), crossbeam-epoch reclamation");
static SCC_INDEX: cht_ops = ops!(SccIndex, 6, c"rs-scc-index", c"Rust scc 3.8.8 HashIndex: lock-free reads, bucket locks for writes, copy-on-write entries, values in AtomicU64 cells (sdd)");

static TABLES: [Option<&'static cht_ops>; 8] = [
    Some(&DASH),
    Some(&PAPAYA),
    Some(&SCC),
    Some(&STD_MUTEX),
    Some(&FLURRY),
    Some(&CONTRIE),
    Some(&SCC_INDEX),
    None,
];

static PLUGIN: cht_plugin = cht_plugin {
    abi_version: CHT_ABI_VERSION,
    name: c"rust".as_ptr(),
    tables: &TABLES as *const Option<&'static cht_ops>,
    locks: std::ptr::null(),
    sizes: CHT_ABI_SIZES,
};

/// The plugin's one required symbol (CHT_PLUGIN_SYMBOL).
#[no_mangle]
pub extern "C" fn cht_plugin() -> *const cht_plugin {
    &PLUGIN
}

/// For tests/test_rust_plugin.c: the mirror's layout as rustc sees it, to compare with the
/// C compiler's. out[0..n) gets, struct after struct in the order below, its size and then
/// every member's offset in declaration order (the same list the test builds with sizeof and
/// offsetof). Returns the count of numbers.
#[no_mangle]
pub extern "C" fn cht_rust_abi_layout(out: *mut usize, n: usize) -> usize {
    use std::mem::{offset_of, size_of};
    let mut v: Vec<usize> = Vec::new();
    macro_rules! layout {
        ($t:ty: $($m:ident),+) => {
            v.push(size_of::<$t>());
            $(v.push(offset_of!($t, $m));)+
        };
    }
    layout!(cht_option: key, val);
    layout!(cht_option_spec: key, help);
    layout!(cht_config: initial, density, range, max_threads, numa_nodes, thread_node, lock, lock_config, options,
            value_size, hugepages, key_kind, key_len_min, key_len_max);
    layout!(cht_stats: bytes, buckets, resizes, full_failures, alloc_failures, tx_begins, tx_commits, tx_aborts,
            tx_fallbacks, fp_bits, fp_bucket_slots, counter, counter_ctx);
    layout!(cht_pipe_op: key, val, kind, stage, result, pad, state);
    layout!(cht_ops: name, summary, caps, options, available, create, destroy, thread_init, thread_exit, get, insert,
            remove, update, size, stats, get_batch, probe_lines, default_lock, pipe_start, pipe_step,
            get_bytes, insert_bytes, remove_bytes, update_bytes);
    layout!(lock_config: numa_nodes, max_threads, handoff_bound, waiter_threshold);
    layout!(lock_stats: acquisitions, fallbacks, tx_begins, tx_commits, tx_aborts, abort_conflict, abort_capacity,
            abort_explicit, abort_retry, abort_other);
    layout!(lock_ops: name, summary, caps, lock_size, ctx_size, available, init, destroy, ctx_init, lock, trylock,
            unlock, read_lock, read_unlock, stats, is_locked, has_waiters, ctx_stats);
    layout!(cht_abi_sizes: cht_ops, cht_config, cht_stats, cht_pipe_op, cht_option, cht_option_spec, lock_ops,
            lock_config, lock_stats);
    layout!(cht_plugin: abi_version, name, tables, locks, sizes);
    for (i, x) in v.iter().enumerate().take(n) {
        unsafe { *out.add(i) = *x };
    }
    v.len()
}
