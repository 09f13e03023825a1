package api

import "sync"

// Response bodies are built in pooled buffers: encoding a page of records
// then costs no allocation once the pool is warm.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func getBuffer() []byte { return (*buffers.Get().(*[]byte))[:0] }

// putBuffer returns b to the pool unless it grew very large.
func putBuffer(b []byte) {
	if cap(b) > 1<<20 {
		return
	}
	buffers.Put(&b)
}
