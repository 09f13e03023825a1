package tracing

import "encoding/binary"

// This file reads what a collector answers a batch with: an
// ExportTraceServiceResponse, in protobuf's wire format.

// partialSuccess reads an ExportTraceServiceResponse: the spans its
// partial_success (1) says were rejected (1) and why (2). A body that is
// not one reads as full success: the collector took the batch. A field of
// another wire type than its own is skipped, as protobuf's decoder keeps
// it aside as unknown.
func partialSuccess(b []byte) (rejected int64, why string) {
	for f := range fields(b) {
		if f.num != 1 || f.wire != wireBytes {
			continue
		}
		for f := range fields(f.v) {
			switch {
			case f.num == 1 && f.wire == wireVarint:
				n, _ := binary.Uvarint(f.v)
				rejected = int64(n)
			case f.num == 2 && f.wire == wireBytes:
				why = printable(f.v)
			}
		}
	}
	return rejected, why
}

// field is one field of a protobuf message: its number, its wire type,
// and its payload (a varint's bytes, a fixed field's, a length-delimited
// field's contents, or a group's fields).
type field struct {
	num, wire int
	v         []byte
}

// fields walks a protobuf message's fields, stopping at the first it
// cannot read.
func fields(b []byte) func(yield func(field) bool) {
	return func(yield func(field) bool) {
		for len(b) > 0 {
			f, n := next(b)
			if n <= 0 || !yield(f) {
				return
			}
			b = b[n:]
		}
	}
}

// next reads the field at the start of b and its length in b, tag
// included; a length of 0 when b does not start with a whole field. An
// end-group tag alone is a field of its own, of no payload.
func next(b []byte) (field, int) {
	tag, n := binary.Uvarint(b)
	if n <= 0 {
		return field{}, 0
	}
	f, rest := field{num: int(tag >> 3), wire: int(tag & 7)}, b[n:]
	size := -1
	switch f.wire {
	case wireVarint:
		_, size = binary.Uvarint(rest)
	case wireFixed64:
		size = 8
	case wireFixed32:
		size = 4
	case wireBytes:
		if l, m := binary.Uvarint(rest); m > 0 && l <= uint64(len(rest)-m) {
			rest, n = rest[m:], n+m
			size = int(l)
		}
	case wireStartGroup:
		size = groupLen(rest, f.num)
	case wireEndGroup:
		size = 0
	}
	if size < 0 || size > len(rest) || (size == 0 && f.wire == wireVarint) {
		return field{}, 0
	}
	f.v = rest[:size]
	return f, n + size
}

// groupLen is the length of a group's fields and its end tag, after its
// start tag for field num (groups are deprecated, but protobuf's decoder
// still skips them as unknown fields); -1 when b does not hold them.
func groupLen(b []byte, num int) int {
	for at := 0; at < len(b); {
		f, n := next(b[at:])
		switch {
		case n <= 0:
			return -1
		case f.wire == wireEndGroup && f.num == num:
			return at + n
		case f.wire == wireEndGroup:
			return -1
		}
		at += n
	}
	return -1
}
