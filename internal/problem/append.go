package problem

import (
	"net/http"
	"strconv"

	"records/internal/wire"
)

// Append writes p as an RFC 9457 problem document answering the request
// with requestID. An internal problem's detail is never its cause: the
// cause is for the log only.
func Append(b []byte, p *Error, requestID string) []byte {
	detail := p.Detail
	if detail == "" || p.Code == Internal {
		detail = defaultDetail(p.Code)
	}
	b = append(b, `{"type":`...)
	b = wire.AppendString(b, "/docs#problem-"+string(p.Code))
	b = append(b, `,"title":`...)
	b = wire.AppendString(b, p.Code.Title())
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(p.Code.Status()), 10)
	b = append(b, `,"detail":`...)
	b = wire.AppendString(b, detail)
	b = append(b, `,"code":`...)
	b = wire.AppendString(b, string(p.Code))
	b = append(b, `,"success":0,"request_id":`...)
	b = wire.AppendString(b, requestID)
	b = append(b, `,"errors":[`...)
	for i, m := range p.Members[:min(len(p.Members), MaxMembers)] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"member":`...)
		b = wire.AppendString(b, m.Member)
		b = append(b, `,"problem":`...)
		b = wire.AppendString(b, m.Problem)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func defaultDetail(c Code) string {
	if c == Internal {
		return "the server failed to answer; the request id identifies the failure in the server's log"
	}
	return http.StatusText(c.Status())
}
