package edge

import (
	"sync"

	"github.com/gin-gonic/gin"
)

// Buffer is a byte buffer from the process's pool. Response bodies are built
// in them, and so are the parts of a body read before it (expanded records):
// encoding a page of records then costs no allocation once the pool is warm.
// The pool holds *Buffer, so that returning one allocates nothing either.
type Buffer struct{ B []byte }

var buffers = sync.Pool{New: func() any { return &Buffer{B: make([]byte, 0, 16<<10)} }}

// GetBuffer returns an empty buffer from the pool.
func GetBuffer() *Buffer {
	buf := buffers.Get().(*Buffer)
	buf.B = buf.B[:0]
	return buf
}

// PutBuffer returns buf to the pool unless it grew very large. Nothing may
// use its bytes afterwards.
func PutBuffer(buf *Buffer) {
	if cap(buf.B) <= 1<<20 {
		buffers.Put(buf)
	}
}

// jsonType is the Content-Type of every success; one shared slice, never modified.
var jsonType = []string{"application/json"}

// WriteJSON answers status with the JSON body that appendBody appends to a
// pooled buffer, straight through the writer: gin's renderers would box
// each answer in an interface first.
func WriteJSON(c *gin.Context, status int, appendBody func(b []byte) []byte) {
	buf := GetBuffer()
	buf.B = appendBody(buf.B)
	c.Writer.Header()["Content-Type"] = jsonType
	c.Writer.WriteHeader(status)
	_, _ = c.Writer.Write(buf.B)
	PutBuffer(buf)
}
