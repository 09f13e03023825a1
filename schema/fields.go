package schema

import (
	"context"
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/schema/field"

	"records/internal/annotation"
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

// now is the server's clock for Date/Time stamps: UTC with the microsecond
// precision both databases keep, so what a write answers equals what a later
// read answers.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// nowText is the server's clock for stamps typed string: RFC 3339 in UTC.
func nowText() string { return time.Now().UTC().Format(time.RFC3339) }

// createdText is a string member the server fills with the creation time
// when the client leaves it absent.
func createdText(name string) ent.Field {
	return field.String(name).Optional().Nillable().DefaultFunc(nowText)
}

// updatedText is a string member the server fills with the time of every
// write that leaves it absent. ent has no update default for strings, so the
// schema that declares one also lists it in its Hooks with stampOnUpdate.
func updatedText(name string) ent.Field { return createdText(name) }

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
	return field.Time(name).Optional().Nillable().Default(now)
}

// updated is a Date/Time member the server fills with the time of every write
// that leaves it absent.
func updated(name string) ent.Field {
	return field.Time(name).Optional().Nillable().Default(now).UpdateDefault(now)
}
