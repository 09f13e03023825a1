// Package sqlitemutex gives SQLite Go mutexes (sqlite3_config
// (SQLITE_CONFIG_MUTEX)) in the service's process.
//
// The driver opens every connection in SQLite's serialized mode, in which
// each call of SQLite's API takes the connection's mutex: three a column
// of every row read (its type, its length, its bytes). On Linux the
// transpiled SQLite takes them through the C library's pthread functions,
// which modernc.org/libc keeps in one map behind one process-wide lock —
// a quarter of a list page's CPU went to those two calls (docs/
// performance.md). On every other system the driver installs mutexes of
// its own, written in Go (modernc.org/sqlite/lib's mutex.go, which these
// follow); here the service installs the same before SQLite is first
// initialised, so that a mutex is a sync.Mutex at its own address. The
// service imports this package (internal/server); bench/baseline, the
// hand-written yardstick, does not, and runs the driver as it comes.
package sqlitemutex

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	sqlite3 "modernc.org/sqlite/lib"
)

// mutex is one of SQLite's mutexes. A recursive one counts how many times
// its holder (a connection's TLS: a connection is used by one goroutine at
// a time) has entered it.
//
// id is written without an atomic store outside race-detecting builds
// (setID): only the holder writes it (its own id on entering, 0 on
// leaving), and another goroutine reading it meanwhile sees the old word
// or the new, neither its own id, which is all the recursion check asks.
// An atomic store is an XCHG, as dear as the lock itself, twice for each
// of three API calls a column.
type mutex struct {
	sync.Mutex
	cnt       int32
	id        int32 // the holder's tls.ID, 0 when free
	recursive bool
}

// The mutexes live in Go's memory, where the race detector sees their
// locking (SQLite's own structures are Go's memory too): static, the
// static mutexes SQLite asks for by number, and allocated, the others by
// address until SQLite frees them, which SQLite holds only as uintptr.
var (
	static    [sqlite3.SQLITE_MUTEX_STATIC_VFS3 + 1]mutex
	allocated sync.Map // uintptr → *mutex
)

// at is the mutex at address m.
func at(m uintptr) *mutex { return (*mutex)(*(*unsafe.Pointer)(unsafe.Pointer(&m))) }

// installed is the outcome of installing them: nil when SQLite took them.
var installed = install()

// Installed tells whether SQLite took the Go mutexes; an error names why
// not (SQLite was initialised before this package's init ran).
func Installed() error { return installed }

func install() error {
	tls := libc.NewTLS()
	defer tls.Close()
	// SQLite copies the methods; the functions are the program's own
	// (none captures a variable), so nothing here need outlive the call.
	methods := &sqlite3.Sqlite3_mutex_methods{
		FxMutexInit:    fp(func(*libc.TLS) int32 { return sqlite3.SQLITE_OK }),
		FxMutexEnd:     fp(func(*libc.TLS) int32 { return sqlite3.SQLITE_OK }),
		FxMutexAlloc:   fp(mutexAlloc),
		FxMutexFree:    fp(func(_ *libc.TLS, m uintptr) { allocated.Delete(m) }),
		FxMutexEnter:   fp(mutexEnter),
		FxMutexTry:     fp(mutexTry),
		FxMutexLeave:   fp(mutexLeave),
		FxMutexHeld:    fp(func(tls *libc.TLS, m uintptr) int32 { return libc.Bool32(m == 0 || at(m).holder() == tls.ID) }),
		FxMutexNotheld: fp(func(tls *libc.TLS, m uintptr) int32 { return libc.Bool32(m == 0 || at(m).holder() != tls.ID) }),
	}
	va := libc.Xmalloc(tls, types.Size_t(unsafe.Sizeof(uintptr(0))))
	if va == 0 {
		return fmt.Errorf("sqlite: no memory to configure its mutexes")
	}
	defer libc.Xfree(tls, va)
	if rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_MUTEX, libc.VaList(va, uintptr(unsafe.Pointer(methods)))); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("sqlite: configuring its mutexes: %s", libc.GoString(sqlite3.Xsqlite3_errstr(tls, rc)))
	}
	return nil
}

// fp is f as a function pointer of the transpiled C.
func fp[F any](f F) uintptr { return *(*uintptr)(unsafe.Pointer(&struct{ f F }{f})) }

func (m *mutex) holder() int32 { return atomic.LoadInt32(&m.id) }

func mutexAlloc(tls *libc.TLS, typ int32) uintptr {
	switch {
	case typ == sqlite3.SQLITE_MUTEX_FAST || typ == sqlite3.SQLITE_MUTEX_RECURSIVE:
		m := &mutex{recursive: typ == sqlite3.SQLITE_MUTEX_RECURSIVE}
		r := uintptr(unsafe.Pointer(m))
		allocated.Store(r, m)
		return r
	case typ > sqlite3.SQLITE_MUTEX_RECURSIVE && int(typ) < len(static):
		return uintptr(unsafe.Pointer(&static[typ]))
	}
	return 0
}

func mutexEnter(tls *libc.TLS, p uintptr) {
	if p == 0 {
		return
	}
	m := at(p)
	if m.recursive && m.holder() == tls.ID { // only its holder writes it
		m.cnt++
		return
	}
	m.Lock()
	setID(m, tls.ID)
	m.cnt = 1
}

func mutexTry(tls *libc.TLS, p uintptr) int32 {
	if p == 0 {
		return sqlite3.SQLITE_OK
	}
	m := at(p)
	if m.recursive && m.holder() == tls.ID {
		m.cnt++
		return sqlite3.SQLITE_OK
	}
	if !m.TryLock() {
		return sqlite3.SQLITE_BUSY
	}
	setID(m, tls.ID)
	m.cnt = 1
	return sqlite3.SQLITE_OK
}

func mutexLeave(tls *libc.TLS, p uintptr) {
	if p == 0 {
		return
	}
	m := at(p)
	if m.cnt--; m.cnt == 0 || !m.recursive {
		setID(m, 0)
		m.Unlock()
	}
}
