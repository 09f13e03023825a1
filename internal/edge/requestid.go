package edge

import (
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
)

// validRequestID is what a client's X-Request-Id must look like to be kept.
var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// RequestID gives every request an id — the client's X-Request-Id when it
// is sensible, else a new one — and answers it in X-Request-Id, where the
// access log and problems read it back.
func RequestID(c *gin.Context) {
	id := c.GetHeader("X-Request-Id")
	if !validRequestID.MatchString(id) {
		id = requestIDs.next()
	}
	c.Writer.Header()["X-Request-Id"] = []string{id}
}

// RequestIDOf returns the request's id.
func RequestIDOf(c *gin.Context) string { return c.Writer.Header().Get("X-Request-Id") }

// idSource makes request ids: a random prefix drawn once per process and a
// counter, so ids are unique across instances and restarts without reading
// the system's randomness on every request.
type idSource struct {
	prefix string
	n      atomic.Uint64
}

var requestIDs = func() *idSource {
	return &idSource{prefix: strings.ReplaceAll(uuid.Must(uuid.NewV7()).String(), "-", "")[:20] + "-"}
}()

func (s *idSource) next() string {
	var b [40]byte
	out := append(b[:0], s.prefix...)
	return string(strconv.AppendUint(out, s.n.Add(1), 36))
}
