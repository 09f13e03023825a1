package tracing

import (
	"encoding/binary"
	"math"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// This file writes an OTLP ExportTraceServiceRequest in protobuf's wire
// format, field by field, as opentelemetry-proto's trace.proto and
// common.proto number them. Scalars at their zero value are left out, as
// proto3 does; a oneof's member (an attribute's value) is always written.

// Wire types.
const (
	wireVarint     = 0
	wireFixed64    = 1
	wireBytes      = 2
	wireStartGroup = 3
	wireEndGroup   = 4
	wireFixed32    = 5
)

// Flags a span carries besides its trace flags (SpanFlags in trace.proto).
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// resourceSpans is the spans of one resource, by instrumentation scope.
type resourceSpans struct {
	res    *resource.Resource
	key    attribute.Distinct
	scopes []*scopeSpans
}

// scopeSpans is the spans of one instrumentation scope.
type scopeSpans struct {
	scope instrumentation.Scope
	spans []sdktrace.ReadOnlySpan
}

// appendRequest appends the ExportTraceServiceRequest carrying spans:
// one ResourceSpans per resource, one ScopeSpans per scope within it, in
// the order they first appear.
func appendRequest(b []byte, spans []sdktrace.ReadOnlySpan) []byte {
	for _, r := range byResource(spans) {
		b = appendMessage(b, 1, r.appendResourceSpans)
	}
	return b
}

// byResource groups spans by resource, then by scope, each in the order
// it first appears (a batch holds one or a few of each).
func byResource(spans []sdktrace.ReadOnlySpan) []*resourceSpans {
	var out []*resourceSpans
	for _, s := range spans {
		if s == nil {
			continue
		}
		key, scope := s.Resource().Equivalent(), s.InstrumentationScope()
		i := slices.IndexFunc(out, func(r *resourceSpans) bool { return r.key == key })
		if i < 0 {
			i, out = len(out), append(out, &resourceSpans{res: s.Resource(), key: key})
		}
		r := out[i]
		j := slices.IndexFunc(r.scopes, func(g *scopeSpans) bool { return g.scope == scope })
		if j < 0 {
			j, r.scopes = len(r.scopes), append(r.scopes, &scopeSpans{scope: scope})
		}
		r.scopes[j].spans = append(r.scopes[j].spans, s)
	}
	return out
}

// appendResourceSpans appends the body of a ResourceSpans.
func (r *resourceSpans) appendResourceSpans(b []byte) []byte {
	b = appendMessage(b, 1, func(b []byte) []byte {
		return appendKeyValues(b, 1, r.res.Attributes())
	})
	for _, g := range r.scopes {
		b = appendMessage(b, 2, g.appendScopeSpans)
	}
	return appendString(b, 3, r.res.SchemaURL())
}

// appendScopeSpans appends the body of a ScopeSpans.
func (g *scopeSpans) appendScopeSpans(b []byte) []byte {
	if g.scope != (instrumentation.Scope{}) {
		b = appendMessage(b, 1, func(b []byte) []byte {
			b = appendString(b, 1, g.scope.Name)
			b = appendString(b, 2, g.scope.Version)
			return appendKeyValues(b, 3, g.scope.Attributes.ToSlice())
		})
	}
	for _, s := range g.spans {
		b = appendMessage(b, 2, func(b []byte) []byte { return appendSpan(b, s) })
	}
	return appendString(b, 3, g.scope.SchemaURL)
}

// appendSpan appends the body of a Span.
func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendBytes(b, 1, tid[:])
	b = appendBytes(b, 2, sid[:])
	b = appendString(b, 3, sc.TraceState().String())
	parent := s.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		b = appendBytes(b, 4, psid[:])
	}
	b = appendString(b, 5, s.Name())
	if k := s.SpanKind(); k >= trace.SpanKindInternal && k <= trace.SpanKindConsumer {
		b = appendUint(b, 6, uint64(k)) // trace.proto numbers kinds as Go does
	}
	b = appendFixed64(b, 7, unixNano(s.StartTime().UnixNano()))
	b = appendFixed64(b, 8, unixNano(s.EndTime().UnixNano()))
	b = appendKeyValues(b, 9, s.Attributes())
	b = appendUint(b, 10, count(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = appendMessage(b, 11, func(b []byte) []byte {
			b = appendFixed64(b, 1, unixNano(e.Time.UnixNano()))
			b = appendString(b, 2, e.Name)
			b = appendKeyValues(b, 3, e.Attributes)
			return appendUint(b, 4, count(e.DroppedAttributeCount))
		})
	}
	b = appendUint(b, 12, count(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = appendMessage(b, 13, func(b []byte) []byte {
			tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = appendBytes(b, 1, tid[:])
			b = appendBytes(b, 2, sid[:])
			b = appendString(b, 3, l.SpanContext.TraceState().String())
			b = appendKeyValues(b, 4, l.Attributes)
			b = appendUint(b, 5, count(l.DroppedAttributeCount))
			return appendFixed32(b, 6, flags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	b = appendUint(b, 14, count(s.DroppedLinks()))
	if st := s.Status(); st.Code != codes.Unset || st.Description != "" {
		b = appendMessage(b, 15, func(b []byte) []byte {
			b = appendString(b, 2, st.Description)
			return appendUint(b, 3, statusCode(st.Code))
		})
	}
	return appendFixed32(b, 16, flags(sc.TraceFlags(), parent))
}

// statusCode is code as trace.proto numbers it (UNSET 0, OK 1, ERROR 2;
// Go's codes number Error 1 and Ok 2).
func statusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}

// flags is a span's or link's flags: the trace flags, and whether its
// parent (a link's own context) is remote.
func flags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if parent.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

// unixNano is a time before 1970 as 0, as the SDK's exporter sends it.
func unixNano(n int64) uint64 { return uint64(max(0, n)) }

// count is a dropped count, clamped to the uint32 the protocol holds.
func count(n int) uint64 { return uint64(min(max(0, n), math.MaxUint32)) }

// appendKeyValues appends each attribute as a KeyValue in field num.
func appendKeyValues(b []byte, num int, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = appendMessage(b, num, func(b []byte) []byte {
			b = appendString(b, 1, string(kv.Key))
			return appendMessage(b, 2, func(b []byte) []byte { return appendAnyValue(b, kv.Value) })
		})
	}
	return b
}

// appendAnyValue appends the body of an AnyValue: its one member, written
// even at its zero value, for that is what says its type. An empty value
// is an empty message.
func appendAnyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.EMPTY:
		return b
	case attribute.STRING:
		return appendLen(appendTag(b, 1, wireBytes), []byte(v.AsString()))
	case attribute.BOOL:
		var n uint64
		if v.AsBool() {
			n = 1
		}
		return binary.AppendUvarint(appendTag(b, 2, wireVarint), n)
	case attribute.INT64:
		return binary.AppendUvarint(appendTag(b, 3, wireVarint), uint64(v.AsInt64()))
	case attribute.FLOAT64:
		return binary.LittleEndian.AppendUint64(appendTag(b, 4, wireFixed64), math.Float64bits(v.AsFloat64()))
	case attribute.BYTESLICE:
		return appendLen(appendTag(b, 7, wireBytes), v.AsByteSlice())
	case attribute.MAP:
		return appendMessage(b, 6, func(b []byte) []byte { return appendKeyValues(b, 1, v.AsMap()) })
	}
	vals, ok := slice(v)
	if !ok {
		return appendLen(appendTag(b, 1, wireBytes), []byte("INVALID"))
	}
	return appendMessage(b, 5, func(b []byte) []byte {
		for _, e := range vals {
			b = appendMessage(b, 1, func(b []byte) []byte { return appendAnyValue(b, e) })
		}
		return b
	})
}

// slice is a slice value's elements as values; false for any other type.
func slice(v attribute.Value) ([]attribute.Value, bool) {
	switch v.Type() {
	case attribute.SLICE:
		return v.AsSlice(), true
	case attribute.BOOLSLICE:
		return each(v.AsBoolSlice(), attribute.BoolValue), true
	case attribute.INT64SLICE:
		return each(v.AsInt64Slice(), attribute.Int64Value), true
	case attribute.FLOAT64SLICE:
		return each(v.AsFloat64Slice(), attribute.Float64Value), true
	case attribute.STRINGSLICE:
		return each(v.AsStringSlice(), attribute.StringValue), true
	}
	return nil, false
}

func each[T any](s []T, value func(T) attribute.Value) []attribute.Value {
	vals := make([]attribute.Value, len(s))
	for i, e := range s {
		vals[i] = value(e)
	}
	return vals
}

func appendTag(b []byte, num, wire int) []byte {
	return binary.AppendUvarint(b, uint64(num)<<3|uint64(wire))
}

func appendLen(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

func appendString(b []byte, num int, s string) []byte {
	if s == "" {
		return b
	}
	return appendLen(appendTag(b, num, wireBytes), []byte(s))
}

func appendBytes(b []byte, num int, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	return appendLen(appendTag(b, num, wireBytes), v)
}

func appendUint(b []byte, num int, n uint64) []byte {
	if n == 0 {
		return b
	}
	return binary.AppendUvarint(appendTag(b, num, wireVarint), n)
}

func appendFixed64(b []byte, num int, n uint64) []byte {
	if n == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint64(appendTag(b, num, wireFixed64), n)
}

func appendFixed32(b []byte, num int, n uint32) []byte {
	if n == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint32(appendTag(b, num, wireFixed32), n)
}

// appendMessage appends field num holding the message body writes: the
// body is written in place, then moved up past its length.
func appendMessage(b []byte, num int, body func([]byte) []byte) []byte {
	b = appendTag(b, num, wireBytes)
	start := len(b)
	b = body(b)
	n := len(b) - start
	var l [binary.MaxVarintLen64]byte
	w := binary.PutUvarint(l[:], uint64(n))
	b = append(b, l[:w]...)
	copy(b[start+w:], b[start:start+n])
	copy(b[start:], l[:w])
	return b
}
