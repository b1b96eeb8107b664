//! A hand-written `#[repr(C)]` mirror of chtbench's C ABI (no bindgen). Mirrors,
//! member for member and in order:
//!   include/cht.h         struct cht_option, cht_option_spec, cht_config,
//!                         cht_stats, cht_pipe_op, cht_ops; CHT_ABI_VERSION; enum cht_caps
//!   include/lock.h        struct lock_config, lock_stats, lock_ops (this plugin
//!                         exports no lock, but their sizes go into cht_plugin.sizes)
//!   include/cht_plugin.h  struct cht_abi_sizes, cht_plugin
//! Checks: build.rs refuses to build when CHT_ABI_VERSION in include/cht.h
//! differs from the constant below; tests/test_rust_abi.py compares every
//! struct's member names and order with the headers'; tests/test_rust_plugin.c
//! compares every struct's size and every member's offset (cht_rust_abi_layout,
//! lib.rs) with the C compiler's; chtbench's loader compares cht_plugin.sizes
//! (filled from these mirrors) with its own.
#![allow(non_camel_case_types, dead_code)]

use std::os::raw::{c_char, c_uint, c_void};

/// CHT_ABI_VERSION of include/cht.h (build.rs checks that they agree).
pub const CHT_ABI_VERSION: c_uint = 6;

pub const CHT_CAP_RESIZE: c_uint = 1 << 0;
pub const CHT_CAP_UPDATE: c_uint = 1 << 1;

/// struct cht_option: one "key=val"; arrays end with key == NULL.
#[repr(C)]
pub struct cht_option {
    pub key: *const c_char,
    pub val: *const c_char,
}

/// struct cht_option_spec: what a table accepts; arrays end with key == NULL.
#[repr(C)]
pub struct cht_option_spec {
    pub key: *const c_char,
    pub help: *const c_char,
}
unsafe impl Sync for cht_option_spec {}

/// struct cht_config.
#[repr(C)]
pub struct cht_config {
    pub initial: usize,
    pub density: f64,
    pub range: u64,
    pub max_threads: c_uint,
    pub numa_nodes: c_uint,
    pub thread_node: *const c_uint,
    pub lock: *const c_void,        // const struct lock_ops *
    pub lock_config: *const c_void, // const struct lock_config *
    pub options: *const cht_option,
    pub value_size: usize,
    pub hugepages: bool,
    pub key_kind: u32,
    pub key_len_min: u32,
    pub key_len_max: u32,
}

/// struct cht_stats.
#[repr(C)]
pub struct cht_stats {
    pub bytes: usize,
    pub buckets: usize,
    pub resizes: u64,
    pub full_failures: u64,
    pub alloc_failures: u64,
    pub tx_begins: u64,
    pub tx_commits: u64,
    pub tx_aborts: u64,
    pub tx_fallbacks: u64,
    pub fp_bits: c_uint,
    pub fp_bucket_slots: c_uint,
    /// The table-counter channel (ABI 5): set by the driver when it collects them, else None.
    pub counter: Option<extern "C" fn(ctx: *mut c_void, name: *const c_char, value: f64)>,
    pub counter_ctx: *mut c_void,
}

/// cht_stats_counter (include/cht.h): reports one named counter of the table, when asked.
pub fn cht_stats_counter(s: &cht_stats, name: &std::ffi::CStr, value: f64) {
    if let Some(f) = s.counter {
        f(s.counter_ctx, name.as_ptr(), value);
    }
}

pub type Table = *mut c_void;

/// struct cht_pipe_op (include/cht.h): one operation in flight under --pipeline.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct cht_pipe_op {
    pub key: u64,
    pub val: u64,
    pub kind: u32,
    pub stage: u32,
    pub result: i32,
    pub pad: u32,
    pub state: [u64; 2],
}

/// struct cht_ops (the vtable).
#[repr(C)]
pub struct cht_ops {
    pub name: *const c_char,
    pub summary: *const c_char,
    pub caps: c_uint,
    pub options: *const cht_option_spec,
    pub available: Option<extern "C" fn(why: *mut c_char, len: usize) -> bool>,
    pub create: Option<extern "C" fn(cfg: *const cht_config, err: *mut c_char, len: usize) -> Table>,
    pub destroy: Option<extern "C" fn(t: Table)>,
    pub thread_init: Option<extern "C" fn(t: Table, tid: c_uint)>,
    pub thread_exit: Option<extern "C" fn(t: Table, tid: c_uint)>,
    pub get: Option<extern "C" fn(t: Table, k: u64, v: *mut u64) -> bool>,
    pub insert: Option<extern "C" fn(t: Table, k: u64, v: u64) -> bool>,
    pub remove: Option<extern "C" fn(t: Table, k: u64) -> bool>,
    pub update: Option<extern "C" fn(t: Table, k: u64, v: u64) -> bool>,
    pub size: Option<extern "C" fn(t: Table) -> usize>,
    pub stats: Option<extern "C" fn(t: Table, s: *mut cht_stats)>,
    pub get_batch: Option<extern "C" fn(t: Table, keys: *const u64, n: usize, vals: *mut u64, found: *mut bool)>,
    pub probe_lines: Option<extern "C" fn(t: Table, k: u64) -> c_uint>,
    pub default_lock: *const c_char,
    pub pipe_start: Option<extern "C" fn(t: Table, ops: *mut cht_pipe_op, n: c_uint)>,
    pub pipe_step: Option<extern "C" fn(t: Table, ops: *mut cht_pipe_op, n: c_uint)>,
    pub get_bytes: Option<extern "C" fn(t: Table, key: *const c_void, len: usize, v: *mut u64) -> bool>,
    pub insert_bytes: Option<extern "C" fn(t: Table, key: *const c_void, len: usize, v: u64) -> bool>,
    pub remove_bytes: Option<extern "C" fn(t: Table, key: *const c_void, len: usize) -> bool>,
    pub update_bytes: Option<extern "C" fn(t: Table, key: *const c_void, len: usize, v: u64) -> bool>,
}
unsafe impl Sync for cht_ops {}

/// struct lock_config (include/lock.h).
#[repr(C)]
pub struct lock_config {
    pub numa_nodes: c_uint,
    pub max_threads: c_uint,
    pub handoff_bound: c_uint,
    pub waiter_threshold: c_uint,
}

/// struct lock_stats (include/lock.h).
#[repr(C)]
pub struct lock_stats {
    pub acquisitions: u64,
    pub fallbacks: u64,
    pub tx_begins: u64,
    pub tx_commits: u64,
    pub tx_aborts: u64,
    pub abort_conflict: u64,
    pub abort_capacity: u64,
    pub abort_explicit: u64,
    pub abort_retry: u64,
    pub abort_other: u64,
}

/// struct lock_ops (include/lock.h): the lock vtable.
#[repr(C)]
pub struct lock_ops {
    pub name: *const c_char,
    pub summary: *const c_char,
    pub caps: c_uint,
    pub lock_size: usize,
    pub ctx_size: usize,
    pub available: Option<extern "C" fn(why: *mut c_char, len: usize) -> bool>,
    pub init: Option<extern "C" fn(lock: *mut c_void, cfg: *const lock_config)>,
    pub destroy: Option<extern "C" fn(lock: *mut c_void)>,
    pub ctx_init: Option<extern "C" fn(ctx: *mut c_void, tid: c_uint, numa_node: c_uint)>,
    pub lock: Option<extern "C" fn(lock: *mut c_void, ctx: *mut c_void)>,
    pub trylock: Option<extern "C" fn(lock: *mut c_void, ctx: *mut c_void) -> bool>,
    pub unlock: Option<extern "C" fn(lock: *mut c_void, ctx: *mut c_void)>,
    pub read_lock: Option<extern "C" fn(lock: *mut c_void, ctx: *mut c_void)>,
    pub read_unlock: Option<extern "C" fn(lock: *mut c_void, ctx: *mut c_void)>,
    pub stats: Option<extern "C" fn(lock: *mut c_void, s: *mut lock_stats)>,
    pub is_locked: Option<extern "C" fn(lock: *mut c_void) -> bool>,
    pub has_waiters: Option<extern "C" fn(lock: *mut c_void, ctx: *mut c_void) -> bool>,
    pub ctx_stats: Option<extern "C" fn(ctx: *mut c_void, s: *mut lock_stats)>,
}

/// struct cht_abi_sizes (include/cht_plugin.h): the sizes of the structs above, as rustc lays
/// them out; chtbench refuses the plugin when one differs from the C compiler's.
#[repr(C)]
pub struct cht_abi_sizes {
    pub cht_ops: u32,
    pub cht_config: u32,
    pub cht_stats: u32,
    pub cht_pipe_op: u32,
    pub cht_option: u32,
    pub cht_option_spec: u32,
    pub lock_ops: u32,
    pub lock_config: u32,
    pub lock_stats: u32,
}

/// CHT_ABI_SIZES of include/cht_plugin.h, from this file's mirrors.
pub const CHT_ABI_SIZES: cht_abi_sizes = {
    use std::mem::size_of;
    cht_abi_sizes {
        cht_ops: size_of::<cht_ops>() as u32,
        cht_config: size_of::<cht_config>() as u32,
        cht_stats: size_of::<cht_stats>() as u32,
        cht_pipe_op: size_of::<cht_pipe_op>() as u32,
        cht_option: size_of::<cht_option>() as u32,
        cht_option_spec: size_of::<cht_option_spec>() as u32,
        lock_ops: size_of::<lock_ops>() as u32,
        lock_config: size_of::<lock_config>() as u32,
        lock_stats: size_of::<lock_stats>() as u32,
    }
};

/// struct cht_plugin (include/cht_plugin.h).
#[repr(C)]
pub struct cht_plugin {
    pub abi_version: c_uint,
    pub name: *const c_char,
    pub tables: *const Option<&'static cht_ops>, // NULL-terminated
    pub locks: *const Option<&'static lock_ops>, // NULL-terminated; none here
    pub sizes: cht_abi_sizes,
}
unsafe impl Sync for cht_plugin {}
