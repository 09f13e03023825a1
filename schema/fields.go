package schema

import (
	"context"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/schema/field"

	"records/internal/annotation"
	"records/internal/stamp"
)

// The helpers below give every member of the contract its declared type. Every
// member but the id can be null, so each field is optional and nillable.

// text is a member typed string (the contract's default type).
func text(name string) ent.Field { return field.String(name).Optional().Nillable() }

// texts declares several string members in contract order.
func texts(names ...string) []ent.Field {
	fields := make([]ent.Field, len(names))
	for i, name := range names {
		fields[i] = text(name)
	}
	return fields
}

// sortable marks a member that lists are often ordered by (a creation stamp,
// a status): the generator gives it an index (team, member, id), so that a
// cursor walks such an order as fast at its end as at its start.
func sortable(f ent.Field) ent.Field {
	d := f.Descriptor()
	d.Annotations = append(d.Annotations, annotation.Sortable())
	return f
}

// searchable marks a text member that full-text search (a list's q) looks
// in, with its weight: "A" weighs most, then "B", "C", "D". The generator
// gives the resource its search index (DESIGN §16).
func searchable(weight string, f ent.Field) ent.Field {
	d := f.Descriptor()
	d.Annotations = append(d.Annotations, annotation.Search(weight))
	return f
}

// boolean is a member typed boolean.
func boolean(name string) ent.Field { return field.Bool(name).Optional().Nillable() }

// integer is a member typed integer.
func integer(name string) ent.Field { return field.Int64(name).Optional().Nillable() }

// number is a member typed number (a floating-point JSON number).
func number(name string) ent.Field { return field.Float(name).Optional().Nillable() }

// numeric is a member typed numeric: a JSON number, held in PostgreSQL's numeric type.
func numeric(name string) ent.Field {
	return field.Float(name).Optional().Nillable().
		SchemaType(map[string]string{dialect.Postgres: "numeric"})
}

// date is a member typed Date, answered as YYYY-MM-DD.
func date(name string) ent.Field {
	return field.Time(name).Optional().Nillable().
		SchemaType(map[string]string{dialect.Postgres: "date"}).
		Annotations(annotation.Date())
}

// datetime is a member typed Date/Time, answered in RFC 3339.
func datetime(name string) ent.Field { return field.Time(name).Optional().Nillable() }

// now and nowText are the server's clock for stamps (package stamp, which
// the generated write paths use too).
var (
	now     = stamp.Now
	nowText = stamp.Text
)

// createdText is a string member the server fills with the creation time
// when the client leaves it absent.
func createdText(name string) ent.Field {
	return field.String(name).Optional().Nillable().DefaultFunc(nowText).
		Annotations(annotation.Field{Stamp: annotation.CreateStamp})
}

// updatedText is a string member the server fills with the time of every
// write that leaves it absent. ent has no update default for strings, so the
// schema that declares one also lists it in its Hooks with stampOnUpdate
// (for writes through ent; the API's own writes read the annotation).
func updatedText(name string) ent.Field {
	return field.String(name).Optional().Nillable().DefaultFunc(nowText).
		Annotations(annotation.Field{Stamp: annotation.UpdateStamp})
}

// stampOnUpdate fills the given string columns with the current time on every
// update that leaves them absent (a client's explicit null clears them).
// Mutations name fields by column: ent's snake_case of the member name.
func stampOnUpdate(names ...string) ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if m.Op().Is(ent.OpUpdate | ent.OpUpdateOne) {
				for _, name := range names {
					if _, set := m.Field(name); set || m.FieldCleared(name) {
						continue
					}
					if err := m.SetField(name, nowText()); err != nil {
						return nil, err
					}
				}
			}
			return next.Mutate(ctx, m)
		})
	}
}

// created is a Date/Time member the server fills with the creation time when
// the client leaves it absent.
func created(name string) ent.Field {
	return field.Time(name).Optional().Nillable().Default(now).
		Annotations(annotation.Field{Stamp: annotation.CreateStamp})
}

// updated is a Date/Time member the server fills with the time of every write
// that leaves it absent.
func updated(name string) ent.Field {
	return field.Time(name).Optional().Nillable().Default(now).UpdateDefault(now).
		Annotations(annotation.Field{Stamp: annotation.UpdateStamp})
}

// jsonText has a JSON member kept as json on PostgreSQL (its text), not
// jsonb (a parsed value, written back in PostgreSQL's own form).
var jsonText = map[string]string{dialect.Postgres: "json"}
