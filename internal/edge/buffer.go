package edge

import (
	"sync"

	"github.com/gin-gonic/gin"
)

// Response bodies are built in pooled buffers: encoding a page of records
// then costs no allocation once the pool is warm. The pool holds *buffer,
// so that returning one allocates nothing either.
type buffer struct{ b []byte }

var buffers = sync.Pool{New: func() any { return &buffer{b: make([]byte, 0, 16<<10)} }}

func getBuffer() *buffer {
	buf := buffers.Get().(*buffer)
	buf.b = buf.b[:0]
	return buf
}

// putBuffer returns buf to the pool unless it grew very large.
func putBuffer(buf *buffer) {
	if cap(buf.b) <= 1<<20 {
		buffers.Put(buf)
	}
}

// jsonType is the Content-Type of every success; one shared slice, never modified.
var jsonType = []string{"application/json"}

// WriteJSON answers status with the JSON body that appendBody appends to a
// pooled buffer, straight through the writer: gin's renderers would box
// each answer in an interface first.
func WriteJSON(c *gin.Context, status int, appendBody func(b []byte) []byte) {
	buf := getBuffer()
	buf.b = appendBody(buf.b)
	c.Writer.Header()["Content-Type"] = jsonType
	c.Writer.WriteHeader(status)
	_, _ = c.Writer.Write(buf.b)
	putBuffer(buf)
}
