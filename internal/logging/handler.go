package logging

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"records/internal/wire"
)

// Handler is a slog.Handler writing one JSON object per record, in the
// layout of slog's JSONHandler (time, level, msg, then the attributes), but
// built by appending into a pooled buffer: the server logs a line per
// request, and slog's JSON handler takes 2.3 times as long a line
// (BenchmarkAccessLine…; README, "Hand-written code kept").
type Handler struct {
	w     io.Writer
	level slog.Leveler
	// pre holds the attributes added with WithAttrs and the groups opened
	// with WithGroup, already encoded; open counts the groups to close.
	pre  []byte
	open int
}

// NewHandler writes records of level info and above to w. Each record is
// one Write call, so w may be shared (Buffered locks).
func NewHandler(w io.Writer) *Handler { return &Handler{w: w, level: slog.LevelInfo} }

// JSON returns a logger writing JSON lines to w.
func JSON(w io.Writer) *slog.Logger { return slog.New(NewHandler(w)) }

// JSONAt returns a logger writing JSON lines of level and above to w.
func JSONAt(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(&Handler{w: w, level: level})
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

type lineBuffer struct{ b []byte }

var lines = sync.Pool{New: func() any { return &lineBuffer{b: make([]byte, 0, 512)} }}

// Handle implements slog.Handler.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	lb := lines.Get().(*lineBuffer)
	b := append(lb.b[:0], '{')
	if !r.Time.IsZero() {
		b = append(b, `"time":"`...)
		b = r.Time.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `",`...)
	}
	b = append(b, `"level":`...)
	b = wire.AppendString(b, r.Level.String())
	b = append(b, `,"msg":`...)
	b = wire.AppendString(b, r.Message)
	b = append(b, h.pre...)
	r.Attrs(func(a slog.Attr) bool {
		b = appendAttr(b, a)
		return true
	})
	for i := 0; i < h.open; i++ {
		b = append(b, '}')
	}
	b = append(b, "}\n"...)
	_, err := h.w.Write(b)
	if cap(b) <= 64<<10 {
		lb.b = b
		lines.Put(lb)
	}
	return err
}

// extend returns a copy of h whose encoded prefix grows by fn. The prefix
// follows the message in every line, so it is built after a stand-in byte
// that is not '{': appendAttr then starts it with a comma, as it must.
func (h *Handler) extend(fn func(b []byte) []byte) *Handler {
	out := *h
	b := fn(append([]byte{'"'}, h.pre...))
	out.pre = b[1:]
	return &out
}

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.extend(func(b []byte) []byte {
		for _, a := range attrs {
			b = appendAttr(b, a)
		}
		return b
	})
}

// WithGroup implements slog.Handler: later attributes go inside an object.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	out := h.extend(func(b []byte) []byte {
		b = append(b, ',')
		b = wire.AppendString(b, name)
		return append(b, ":{"...)
	})
	out.open++
	return out
}

// appendAttr appends "key":value as slog's JSONHandler would, after a
// comma unless it is an object's first member.
func appendAttr(b []byte, a slog.Attr) []byte {
	v := a.Value.Resolve()
	if a.Equal(slog.Attr{}) || (v.Kind() == slog.KindGroup && len(v.Group()) == 0) {
		return b
	}
	if v.Kind() == slog.KindGroup && a.Key == "" {
		for _, g := range v.Group() {
			b = appendAttr(b, g)
		}
		return b
	}
	if n := len(b); n > 0 && b[n-1] != '{' {
		b = append(b, ',')
	}
	b = wire.AppendString(b, a.Key)
	b = append(b, ':')
	switch v.Kind() {
	case slog.KindString:
		return wire.AppendString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindFloat64:
		return wire.AppendFloat(b, v.Float64())
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		return strconv.AppendInt(b, int64(v.Duration()), 10)
	case slog.KindTime:
		b = append(b, '"')
		b = v.Time().AppendFormat(b, time.RFC3339Nano)
		return append(b, '"')
	case slog.KindGroup:
		b = append(b, '{')
		for _, g := range v.Group() {
			b = appendAttr(b, g)
		}
		return append(b, '}')
	}
	// Any: errors by their text, the rest as encoding/json writes them.
	x := v.Any()
	if err, ok := x.(error); ok {
		return wire.AppendString(b, err.Error())
	}
	j, err := json.Marshal(x)
	if err != nil {
		return wire.AppendString(b, "!ERROR:"+err.Error())
	}
	return append(b, j...)
}
