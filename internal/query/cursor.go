package query

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"records/internal/spec"
)

// Cursors is the codec of cursors: opaque strings that a list answers in
// paging.next_cursor and takes back in cursor. A cursor carries the
// position of the last record of its page and what it was made for — the
// resource, the team, and the filter and order (Page.Shape) — and is
// signed, so one made for another list, or altered, is refused rather than
// trusted. Every instance of the service must share the key.
type Cursors struct{ key []byte }

// NewCursors makes the codec with a signing key.
func NewCursors(key []byte) *Cursors { return &Cursors{key: key} }

// Binding is what a cursor is made for.
type Binding struct {
	Resource string // the plural
	Team     int
	Shape    string // Page.Shape
}

// cursorBody is a cursor's content before it is signed.
type cursorBody struct {
	Resource string            `json:"r"`
	Team     int               `json:"t"`
	Shape    string            `json:"s"` // a hash of the shape
	Values   []json.RawMessage `json:"v"`
	ID       string            `json:"i"`
}

// macSize is the bytes of the signature a cursor carries.
const macSize = 16

// ErrCursor is a cursor that cannot be used; its text says why.
var ErrCursor = errors.New("is not a cursor of this list")

// Encode makes the cursor of position pos in keys for b.
func (c *Cursors) Encode(b Binding, keys []Key, pos Position) string {
	body := cursorBody{Resource: b.Resource, Team: b.Team, Shape: shapeHash(b.Shape), ID: pos.ID}
	for i, v := range pos.Values {
		body.Values = append(body.Values, encodeValue(keys[i].Col.Type, v))
	}
	payload, _ := json.Marshal(body)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(c.sign(payload))
}

// Decode reads a cursor made for b in keys, or fails with ErrCursor.
func (c *Cursors) Decode(token string, b Binding, keys []Key) (*Position, error) {
	p, m, ok := strings.Cut(token, ".")
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	mac, err2 := base64.RawURLEncoding.DecodeString(m)
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(mac, c.sign(payload)) {
		return nil, fmt.Errorf("%w: it was altered or is not a cursor at all", ErrCursor)
	}
	var body cursorBody
	d := json.NewDecoder(bytes.NewReader(payload))
	d.UseNumber()
	if err := d.Decode(&body); err != nil {
		return nil, fmt.Errorf("%w: it is malformed", ErrCursor)
	}
	switch {
	case body.Resource != b.Resource:
		return nil, fmt.Errorf("%w: it was made for %s", ErrCursor, body.Resource)
	case body.Team != b.Team:
		return nil, fmt.Errorf("%w: it was made for another team", ErrCursor)
	case scored(body, keys):
		return nil, fmt.Errorf("%w: it was made when best match first was ordered by a score, before relevance tiers; start again from the first page", ErrCursor)
	case body.Shape != shapeHash(b.Shape) || len(body.Values) != len(keys)-1:
		return nil, fmt.Errorf("%w: it was made for another filter or order; send the same filter and order_by with it", ErrCursor)
	}
	pos := &Position{ID: body.ID}
	for i, raw := range body.Values {
		v, err := decodeValue(keys[i].Col.Type, raw)
		if err != nil {
			return nil, fmt.Errorf("%w: it is malformed", ErrCursor)
		}
		pos.Values = append(pos.Values, v)
	}
	return pos, nil
}

// scored tells a cursor of a search best match first made when that order
// was by a score: its rank is a JSON number, where a tier is a string.
func scored(body cursorBody, keys []Key) bool {
	return len(keys) == 2 && keys[0].Col == RankColumn && len(body.Values) == 1 &&
		len(body.Values[0]) > 0 && body.Values[0][0] != '"'
}

func (c *Cursors) sign(payload []byte) []byte {
	h := hmac.New(sha256.New, c.key)
	h.Write(payload)
	return h.Sum(nil)[:macSize]
}

func shapeHash(shape string) string {
	sum := sha256.Sum256([]byte(shape))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// A text key longer than bigText bytes is carried by its digest, which
// the list resolves from the record the cursor follows (Position.Resolve):
// a cursor stays small enough to send back however long a text it orders
// by.
const bigText = 256

// Digest stands for a long text key's value in a decoded Position until
// it is resolved.
type Digest [16]byte

func digestOf(s string) Digest {
	sum := sha256.Sum256([]byte(s))
	return Digest(sum[:16])
}

// digested is a Digest as a cursor carries it.
type digested struct {
	H []byte `json:"h"`
}

// encodeValue writes a key's value; integers as text, so that no JSON
// reader rounds them.
func encodeValue(t spec.Type, v any) json.RawMessage {
	var out []byte
	switch x := v.(type) {
	case nil:
		return json.RawMessage("null")
	case string:
		if len(x) > bigText {
			d := digestOf(x)
			out, _ = json.Marshal(digested{H: d[:]})
		} else {
			out, _ = json.Marshal(x)
		}
	case int64:
		out, _ = json.Marshal(strconv.FormatInt(x, 10))
	case time.Time:
		out, _ = json.Marshal(x.UTC().Format(time.RFC3339Nano))
	default:
		out, _ = json.Marshal(x)
	}
	return out
}

// decodeValue reads a key's value of type t back.
func decodeValue(t spec.Type, raw json.RawMessage) (any, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	var s string
	switch t {
	case spec.Integer:
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return strconv.ParseInt(s, 10, 64)
	case spec.Number:
		var f float64
		err := json.Unmarshal(raw, &f)
		return f, err
	case spec.Boolean:
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case spec.Date, spec.DateTime:
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return time.Parse(time.RFC3339Nano, s)
	default:
		if len(raw) > 0 && raw[0] == '{' {
			var d digested
			if err := json.Unmarshal(raw, &d); err != nil || len(d.H) != len(Digest{}) {
				return nil, ErrCursor
			}
			return Digest(d.H), nil
		}
		err := json.Unmarshal(raw, &s)
		return s, err
	}
}

// idKeys are the keys of a list ordered by one text alone: the position
// carries it as its id.
var idKeys = []Key{{}}

// EncodeID is the cursor after id in a list ordered by id alone (the event
// log, a record's history, webhooks and their deliveries) made for b.
func (c *Cursors) EncodeID(b Binding, id string) string {
	return c.Encode(b, idKeys, Position{ID: id})
}

// DecodeID reads a cursor EncodeID made for b, or fails with ErrCursor.
func (c *Cursors) DecodeID(token string, b Binding) (string, error) {
	pos, err := c.Decode(token, b, idKeys)
	if err != nil {
		return "", err
	}
	return pos.ID, nil
}
