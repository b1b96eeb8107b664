// Package main is chtbench's Go maps plugin (plugins/go): a -buildmode=c-shared library whose
// C side (shim.c) exports cht_plugin() and the struct cht_ops function pointers, each of which
// calls one exported Go function below. Tables (include/cht.h's contract, as plugins/rust/src/maps.rs):
//
//	go-syncmap  sync.Map (the standard library's; a concurrent hash-trie since Go 1.24), keys and
//	            values boxed in interfaces (sync.Map's API): get -> Load; insert -> LoadOrStore
//	            (inserted when not loaded); remove -> LoadAndDelete; update -> Load, then
//	            CompareAndSwap(k, old, v) until it succeeds or the key is gone (only if present,
//	            atomic: the CAS succeeds only while k still maps to the value read); size -> Range
//	            counting the entries (sync.Map keeps no count: O(n), exact when quiescent)
//	go-xsync    github.com/puzpuzpuz/xsync/v4 Map[uint64, uint64] (MapOf in v3; CLHT-inspired
//	            cache-line buckets, lock-free reads, bucket locks for writes): get -> Load;
//	            insert -> LoadOrStore; remove -> LoadAndDelete; update -> Compute (UpdateOp
//	            when loaded, CancelOp otherwise: one bucket-locked step); size -> Size() (its
//	            striped counter: exact when quiescent). Pre-sized with WithPresize(cfg->initial),
//	            or initial / density when density > 1 (the conformance suite's "tiny start").
//
// Tables are named to C by a small integer handle (slot + 1) into a fixed array of atomic
// pointers: C never holds a Go pointer (cgo's pointer rules), and an operation costs one atomic
// load to find its map.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -O2 -Wall -Wextra
#include <stdint.h>
#include <stddef.h>
*/
import "C"

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/puzpuzpuz/xsync/v4"
)

func main() {} // required by -buildmode=c-shared; never runs

const maxTables = 256 // tables alive at once, per kind (chtbench creates one at a time)

type syncTable struct {
	m       sync.Map
	restore settings
}

type xsyncTable struct {
	m       *xsync.Map[uint64, uint64]
	restore settings
}

var (
	syncTabs  [maxTables]atomic.Pointer[syncTable]
	xsyncTabs [maxTables]atomic.Pointer[xsyncTable]
	slotMu    sync.Mutex // create/destroy only
)

// settings: the process-wide runtime settings a table's options changed, put back by destroy.
type settings struct {
	procs int // previous GOMAXPROCS, 0: unchanged
	gogc  int // previous GOGC percent (-1: off)
	gcSet bool
}

func apply(procs, gogc int, gcSet bool) settings {
	var s settings
	if procs > 0 {
		s.procs = runtime.GOMAXPROCS(procs)
	}
	if gcSet {
		s.gogc, s.gcSet = debug.SetGCPercent(gogc), true
	}
	return s
}

func (s settings) undo() {
	if s.procs > 0 {
		runtime.GOMAXPROCS(s.procs)
	}
	if s.gcSet {
		debug.SetGCPercent(s.gogc)
	}
}

func claim[T any](tabs *[maxTables]atomic.Pointer[T], t *T) uintptr {
	slotMu.Lock()
	defer slotMu.Unlock()
	for i := range tabs {
		if tabs[i].Load() == nil {
			tabs[i].Store(t)
			return uintptr(i + 1)
		}
	}
	return 0
}

func release[T any](tabs *[maxTables]atomic.Pointer[T], h uintptr) *T {
	if h == 0 || h > maxTables {
		return nil
	}
	slotMu.Lock()
	defer slotMu.Unlock()
	return tabs[h-1].Swap(nil)
}

func syncOf(h C.uintptr_t) *syncTable { return syncTabs[uintptr(h)-1].Load() }

func xsyncOf(h C.uintptr_t) *xsyncTable { return xsyncTabs[uintptr(h)-1].Load() }

func b2c(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// ---- the runtime's settings, for the tables' summaries (shim.c) ----

//export chtGoGOMAXPROCS
func chtGoGOMAXPROCS() C.int { return C.int(runtime.GOMAXPROCS(0)) }

// chtGoGOGC: the GC percent in force (-1: GOGC=off), read through runtime/metrics.
//
//export chtGoGOGC
func chtGoGOGC() C.int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return -2
	}
	return C.int(int64(s[0].Value.Uint64()))
}

//export chtGoVersion
func chtGoVersion(buf *C.char, n C.size_t) {
	v := runtime.Version()
	if n == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
	k := copy(b[:n-1], v)
	b[k] = 0
}

// chtGoCallProbe does nothing: plugins/go/bench_cgo_call.c times calls to it from C threads
// (the cost of a C -> Go call, which every operation of these tables pays once).
//
//export chtGoCallProbe
func chtGoCallProbe(x C.uint64_t) C.uint64_t { return x + 1 }

// chtGoCreate: kind 0 sync.Map, 1 xsync; capacity the keys to pre-size for (xsync only);
// procs > 0 sets GOMAXPROCS, gcSet sets GOGC to gogc (-1: off), both until destroy.
// Returns the handle, or 0 when every slot is taken.
//
//export chtGoCreate
func chtGoCreate(kind C.int, capacity C.uint64_t, procs C.int, gogc C.int, gcSet C.int) C.uintptr_t {
	s := apply(int(procs), int(gogc), gcSet != 0)
	var h uintptr
	if kind == 0 {
		h = claim(&syncTabs, &syncTable{restore: s})
	} else {
		m := xsync.NewMap[uint64, uint64](xsync.WithPresize(int(capacity)))
		h = claim(&xsyncTabs, &xsyncTable{m: m, restore: s})
	}
	if h == 0 {
		s.undo()
	}
	return C.uintptr_t(h)
}

//export chtGoDestroy
func chtGoDestroy(kind C.int, h C.uintptr_t) {
	if kind == 0 {
		if t := release(&syncTabs, uintptr(h)); t != nil {
			t.restore.undo()
		}
	} else if t := release(&xsyncTabs, uintptr(h)); t != nil {
		t.restore.undo()
	}
}

// ---- go-syncmap ----

//export chtGoSyncGet
func chtGoSyncGet(h C.uintptr_t, k C.uint64_t, v *C.uint64_t) C.int {
	x, ok := syncOf(h).m.Load(uint64(k))
	if ok && v != nil {
		*v = C.uint64_t(x.(uint64))
	}
	return b2c(ok)
}

//export chtGoSyncInsert
func chtGoSyncInsert(h C.uintptr_t, k C.uint64_t, v C.uint64_t) C.int {
	_, loaded := syncOf(h).m.LoadOrStore(uint64(k), uint64(v))
	return b2c(!loaded)
}

//export chtGoSyncRemove
func chtGoSyncRemove(h C.uintptr_t, k C.uint64_t) C.int {
	_, loaded := syncOf(h).m.LoadAndDelete(uint64(k))
	return b2c(loaded)
}

//export chtGoSyncUpdate
func chtGoSyncUpdate(h C.uintptr_t, k C.uint64_t, v C.uint64_t) C.int {
	m := &syncOf(h).m
	key := any(uint64(k))
	nv := any(uint64(v))
	for {
		old, ok := m.Load(key)
		if !ok {
			return 0
		}
		// compares the stored interface with old: equal uint64s compare equal, so a concurrent
		// update that wrote the same value (or a remove + insert of it) does not fail this one,
		// and that is still linearizable (k held old at the CAS)
		if m.CompareAndSwap(key, old, nv) {
			return 1
		}
	}
}

//export chtGoSyncSize
func chtGoSyncSize(h C.uintptr_t) C.size_t {
	n := 0
	syncOf(h).m.Range(func(_, _ any) bool { n++; return true })
	return C.size_t(n)
}

// ---- go-xsync ----

//export chtGoXsyncGet
func chtGoXsyncGet(h C.uintptr_t, k C.uint64_t, v *C.uint64_t) C.int {
	x, ok := xsyncOf(h).m.Load(uint64(k))
	if ok && v != nil {
		*v = C.uint64_t(x)
	}
	return b2c(ok)
}

//export chtGoXsyncInsert
func chtGoXsyncInsert(h C.uintptr_t, k C.uint64_t, v C.uint64_t) C.int {
	_, loaded := xsyncOf(h).m.LoadOrStore(uint64(k), uint64(v))
	return b2c(!loaded)
}

//export chtGoXsyncRemove
func chtGoXsyncRemove(h C.uintptr_t, k C.uint64_t) C.int {
	_, loaded := xsyncOf(h).m.LoadAndDelete(uint64(k))
	return b2c(loaded)
}

//export chtGoXsyncUpdate
func chtGoXsyncUpdate(h C.uintptr_t, k C.uint64_t, v C.uint64_t) C.int {
	nv := uint64(v)
	found := false
	xsyncOf(h).m.Compute(uint64(k), func(old uint64, loaded bool) (uint64, xsync.ComputeOp) {
		if !loaded {
			return old, xsync.CancelOp
		}
		found = true
		return nv, xsync.UpdateOp
	})
	return b2c(found)
}

//export chtGoXsyncSize
func chtGoXsyncSize(h C.uintptr_t) C.size_t { return C.size_t(xsyncOf(h).m.Size()) }

// chtGoXsyncStats: root buckets, growths and an estimate of the bytes (xsync v4.5.0's layout,
// map.go: 64-byte buckets, root and chained; each entry its own 16-byte allocation; one 64-byte
// counter stripe per 1024 bytes of root buckets, at most 64 KiB). Stats() walks every bucket: O(n).
//
//export chtGoXsyncStats
func chtGoXsyncStats(h C.uintptr_t, bytes, buckets, resizes *C.uint64_t) {
	s := xsyncOf(h).m.Stats()
	*buckets = C.uint64_t(s.RootBuckets)
	*resizes = C.uint64_t(s.TotalGrowths + s.TotalShrinks)
	*bytes = C.uint64_t(s.TotalBuckets*64 + s.Size*16 + s.CounterLen*64 + 256)
}
