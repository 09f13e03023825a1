package gen

import (
	"fmt"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"

	"records/internal/annotation"
	"records/internal/spec"
)

// Filterable tells whether lists may filter and order by the member.
func (f *fieldView) Filterable() bool { return spec.Type(f.Kind).Filterable() }

// StampFunc is the function of package stamp giving a server-filled
// stamp's value.
func (f *fieldView) StampFunc() string {
	if f.Kind == "datetime" {
		return "Now"
	}
	return "Text"
}

// WriteValue is the function of package engine turning the decoded value's
// pointer (nil when null) into what the database stores: JSON documents as
// text.
func (f *fieldView) WriteValue() string {
	switch f.Kind {
	case "object":
		return "JSONText"
	case "string_map":
		return "JSONMap"
	}
	return "Val"
}

// TypeConst is the member's type as a constant of package spec.
func (f *fieldView) TypeConst() string { return typeConsts[spec.Type(f.Kind)] }

// typeConsts name spec's constants of the member types.
var typeConsts = map[spec.Type]string{
	spec.String: "String", spec.Integer: "Integer", spec.Number: "Number", spec.Boolean: "Boolean",
	spec.Date: "Date", spec.DateTime: "DateTime", spec.Object: "Object", spec.StringMap: "StringMap",
}

// keyText is the JSON text that opens a member, as a Go literal:
// `{"id":` for the first, `,"name":` after.
func keyText(member string, first bool) string {
	sep := ","
	if first {
		sep = "{"
	}
	return goText(sep + strconv.Quote(member) + ":")
}

// goText is s as a Go string literal: a raw string when s has no backquote
// (JSON keys read as they are sent: `,"name":`), else quoted.
func goText(s string) string {
	if strings.ContainsAny(s, "`\r") {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

// fieldView is one member of a resource.
type fieldView struct {
	Member     string // JSON name
	GoName     string // the record struct's field, e.g. "FirstName"
	StructType string // its type, e.g. "*string"
	ColumnName string // the column, e.g. "first_name"
	// Key is the JSON text before the member's value, as a Go literal:
	// `{"id":` for the first member, `,"name":` after.
	Key    string
	Kind   string // string, integer, number, boolean, date, datetime, object, string_map
	GoType string // value type in the input, e.g. "string"
	// Convert is the wire converter decoding the member, e.g. "String"
	// (wire.String); Appender the wire function encoding it, e.g.
	// "AppendStringPtr", given the field widened to int64 when Widen.
	Convert  string
	Appender string
	Widen    bool
	// Input is the converter of the member in a body: Convert's, but for
	// a text the database indexes, whose length it bounds (IndexedString).
	Input    string
	IsID     bool
	ReadOnly bool
	// Parent is the resource this field names by id, for foreign keys.
	Parent *resourceView
	// Stamp says when the server fills the field: "create", "update" or "".
	Stamp string
	// Sortable members have an index (team, member, id) for lists.
	Sortable bool
	// Search is the weight ("A" to "D") of a member full-text search looks
	// in; "" for one it does not.
	Search string
	// Pointer fields are nil when null (ent's Nillable); IntField ones are
	// plain ints that a cursor's value widens to int64.
	Pointer  bool
	IntField bool
	// What the schema's options say of the member (DESIGN §14): Required
	// (not Optional: given on create, never null), the rule its values
	// keep (RuleVar, declared as RuleDecl), its Default for a create that
	// leaves it out (a Go literal), Immutable (set on create, then fixed),
	// Sensitive (written, never answered), its Comment and Unique.
	Required  bool
	MinLen    int      // characters; 0: none
	MaxLen    int      // characters; 0: none
	Patterns  []string // regular expressions (RE2) the text matches
	Enum      []string // the values it may take
	Min, Max  string   // bounds of a number, decimal; "": none
	Default   string   // Go literal of the default; "": none
	DefaultJS string   // JSON literal of the default, for documents
	Immutable bool
	Sensitive bool
	Comment   string
	Unique    bool
	RuleVar   string
	// Owner is the type of the resource the member is of, e.g. "Book".
	Owner string
	// PGType is the column's PostgreSQL type, for the casts a write that
	// inserts by SELECT needs.
	PGType string
	// How a read scans the field: into the entity's field itself, or, when
	// that cannot take the column, into the row's holder (of type
	// ScanHolder, named as the field) whose value is then moved into the
	// entity: as a json.RawMessage (ScanRaw), unmarshalled (ScanMap), or
	// pointed to when valid (a sql.Null, engine.Held).
	Holder     string
	ScanHolder string
	ScanRaw    bool
	ScanMap    bool
}

// ValueOf is the Go expression of the field's value in entity e for a
// cursor's position: nil when null, an int widened to int64.
func (f *fieldView) ValueOf(e string) string {
	switch {
	case f.Pointer:
		return "engine.Val(" + e + "." + f.GoName + ")"
	case f.IntField:
		return "int64(" + e + "." + f.GoName + ")"
	}
	return e + "." + f.GoName
}

// appendCall is a field of an entity, for the template that appends it.
type appendCall struct {
	F      *fieldView
	Entity string // the Go expression of the entity, e.g. "e"
}

// On is the field of entity e, for the "append" template.
func (f *fieldView) On(e string) appendCall { return appendCall{f, e} }

// newField decides how one ent field is decoded, encoded and written. A
// member is nullable (Optional().Nillable(): a pointer in the record) or
// required (neither: a value, never null); read-only counters and JSON
// documents are values too.
func newField(f *gen.Field, fa annotation.Field) (*fieldView, error) {
	required := !f.Optional && !fa.ReadOnly
	pointer := f.Nillable && !required
	v := &fieldView{
		Member:     f.Name,
		GoName:     f.StructField(),
		StructType: f.Type.String(),
		ColumnName: f.StorageKey(),
		ReadOnly:   fa.ReadOnly,
		Sortable:   fa.Sortable,
		Search:     fa.Search,
		PGType:     pgType(f, fa),
		Pointer:    pointer,
		IntField:   !pointer && f.Type.Type == field.TypeInt,
		Required:   required,
	}
	v.Stamp = fa.Stamp
	ptr := "Ptr"
	if !pointer {
		ptr = ""
	}
	switch t := f.Type.Type; {
	case t == field.TypeString || t == field.TypeEnum:
		v.Kind, v.GoType, v.Convert, v.Appender = "string", "string", "String", "AppendString"+ptr
		v.StructType = "string"
	case t == field.TypeInt64 || t == field.TypeInt:
		v.Kind, v.GoType, v.Convert, v.Appender = "integer", "int64", "Int64", "AppendInt64Ptr"
		if !pointer {
			v.Appender, v.Widen = "AppendInt", true
		}
	case t == field.TypeFloat64:
		v.Kind, v.GoType, v.Convert, v.Appender = "number", "float64", "Float64", "AppendFloat"+ptr
		if ptr != "" {
			v.Appender = "AppendFloat64Ptr"
		}
	case t == field.TypeBool:
		v.Kind, v.GoType, v.Convert, v.Appender = "boolean", "bool", "Bool", "AppendBool"+ptr
	case t == field.TypeTime && fa.Date:
		v.Kind, v.GoType, v.Convert, v.Appender = "date", "time.Time", "Date", "AppendDate"+ptr
	case t == field.TypeTime:
		v.Kind, v.GoType, v.Convert, v.Appender = "datetime", "time.Time", "DateTime", "AppendTime"+ptr
	case t == field.TypeJSON && f.Type.Ident == "map[string]string":
		v.Kind, v.GoType, v.Convert, v.Appender = "string_map", "map[string]string", "StringMap", "AppendStringMap"
	case t == field.TypeJSON && f.Type.Ident == "json.RawMessage":
		v.Kind, v.GoType, v.Convert, v.Appender = "object", "json.RawMessage", "Object", "AppendRaw"
	default:
		return nil, fmt.Errorf("field %s: type %s is not supported by the API generator", f.Name, f.Type)
	}
	if pointer {
		v.StructType = "*" + v.StructType
	}
	v.Input = v.Convert
	if f.Optional && !f.Nillable && f.Type.Type != field.TypeJSON && !fa.ReadOnly {
		return nil, fmt.Errorf("field %s must be Optional().Nillable() (a member that can be null) "+
			"or neither (a required member): Optional() alone keeps null out of the record", f.Name)
	}
	return v, nil
}

// pgType is the PostgreSQL type of the field's column.
func pgType(f *gen.Field, fa annotation.Field) string {
	if t := f.Column().SchemaType[dialect.Postgres]; t != "" {
		return t
	}
	switch f.Type.Type {
	case field.TypeString:
		return "text"
	case field.TypeInt64, field.TypeInt:
		return "int8"
	case field.TypeFloat64:
		return "float8"
	case field.TypeBool:
		return "boolean"
	case field.TypeTime:
		if fa.Date {
			return "date"
		}
		return "timestamptz"
	case field.TypeJSON:
		return "jsonb"
	}
	return "text"
}

// setScan decides how the field is read from a row.
// Nullable columns go through a holder in the row struct, whose value the
// entity's pointer then points into: one allocation per record.
func (f *fieldView) setScan() {
	switch {
	case !f.Nullable():
		return // straight into the entity
	case f.Kind == "object":
		f.ScanHolder, f.ScanRaw = "[]byte", true
	case f.Kind == "string_map":
		f.ScanHolder, f.ScanMap = "[]byte", true
	default:
		f.ScanHolder = "sql.Null[" + f.GoType + "]"
	}
	f.Holder = f.GoName
}

// Nullable tells whether the member can be null: all but the id and the
// read-only counters (version, an exposed team_id). Reads scan the others
// straight into the entity, the document declares them non-null, and the
// clients type them as plain values.
func (f *fieldView) Nullable() bool {
	return !f.IsID && !(f.ReadOnly && f.Kind == "integer") && !f.Required
}

// checkSearch refuses a search annotation the generator cannot honour: a
// weight other than A–D, a member that is not text, or one that is
// sensitive (its words would be found by anyone who may list).
func checkSearch(v *fieldView) error {
	switch {
	case v.Search == "":
		return nil
	case len(v.Search) != 1 || !strings.Contains(annotation.SearchWeights, v.Search):
		return fmt.Errorf("field %s: search weight %q: use A, B, C or D", v.Member, v.Search)
	case v.Kind != "string":
		return fmt.Errorf("field %s: only a text member can be searchable, not a %s", v.Member, v.Kind)
	case v.Sensitive:
		return fmt.Errorf("field %s: a sensitive member cannot be searchable: its words would answer searches", v.Member)
	}
	return nil
}
