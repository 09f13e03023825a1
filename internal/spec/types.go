package spec

// Type is a member's type in the API, as the generator derives it from the
// ent schema; it decides how the member is read, written, filtered and
// documented.
type Type string

// The member types.
const (
	String    Type = "string"
	Integer   Type = "integer"
	Number    Type = "number"
	Boolean   Type = "boolean"
	Date      Type = "date"       // YYYY-MM-DD
	DateTime  Type = "datetime"   // RFC 3339
	Object    Type = "object"     // any JSON object
	StringMap Type = "string_map" // a JSON object of strings
)

// Ordered tells whether values of the type compare as less and greater
// (gt, lt and the like), beyond equality.
func (t Type) Ordered() bool {
	switch t {
	case String, Integer, Number, Date, DateTime:
		return true
	}
	return false
}

// Filterable tells whether lists may filter and order by a member of the type.
func (t Type) Filterable() bool { return t != Object && t != StringMap }
