//! A hand-written `#[repr(C)]` mirror of the parts of chtbench's C ABI this
//! plugin uses (no bindgen). Mirrors, member for member and in order:
//!   include/cht.h         struct cht_option, cht_option_spec, cht_config,
//!                         cht_stats, cht_pipe_op, cht_ops; CHT_ABI_VERSION; enum cht_caps
//!   include/cht_plugin.h  struct cht_plugin
//! struct lock_ops / lock_config (include/lock.h) are only pointed to: opaque.
//! Checks: build.rs refuses to build when CHT_ABI_VERSION in include/cht.h
//! differs from the constant below; tests/test_rust_plugin.c compares every
//! struct's size and last member's offset (cht_rust_abi_layout, lib.rs) with
//! the C compiler's.
#![allow(non_camel_case_types, dead_code)]

use std::os::raw::{c_char, c_uint, c_void};

/// CHT_ABI_VERSION of include/cht.h (build.rs checks that they agree).
pub const CHT_ABI_VERSION: c_uint = 3;

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
}
unsafe impl Sync for cht_ops {}

/// struct cht_plugin (include/cht_plugin.h).
#[repr(C)]
pub struct cht_plugin {
    pub abi_version: c_uint,
    pub name: *const c_char,
    pub tables: *const Option<&'static cht_ops>, // NULL-terminated
    pub locks: *const c_void,                    // const struct lock_ops *const *; none here
}
unsafe impl Sync for cht_plugin {}
