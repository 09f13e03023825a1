package db_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	entgo "entgo.io/ent"
	"entgo.io/ent/entc/gen"
	"entgo.io/ent/schema/field"
	"github.com/google/uuid"

	"records/ent"
	"records/internal/annotation"
	"records/internal/db"
	"records/internal/dbtest"
	"records/internal/tenant"
	"records/schema"
)

// resources are the seventeen resources of the contract, parents before
// the children that name them.
var resources = []entgo.Interface{
	schema.ReturnRecord{}, schema.ReturnLineItem{},
	schema.CaseRecord{}, schema.ChannelThread{},
	schema.Customer{}, schema.User{}, schema.Supplier{}, schema.Vendor{}, schema.Contact{},
	schema.PackingList{}, schema.PackingListItem{},
	schema.BillOfMaterialsLineItem{},
	schema.WorkOrder{}, schema.WorkOrderLineItem{},
	schema.PurchaseOrder{},
	schema.Warranty{}, schema.WarrantyLineItem{},
}

// member is one field of a resource as the schema declares it.
type member struct {
	name   string
	typ    field.Type
	ident  string // Go type of a JSON field
	date   bool
	parent string // for a foreign key: the parent's type
}

func typeName(s entgo.Interface) string { return reflect.TypeOf(s).Name() }

// membersOf reads a schema's fields (its mixins' first), skipping id and team_id.
func membersOf(t *testing.T, s entgo.Interface) []member {
	t.Helper()
	var (
		fields []entgo.Field
		edges  []entgo.Edge
	)
	for _, m := range s.Mixin() {
		fields = append(fields, m.Fields()...)
		edges = append(edges, m.Edges()...)
	}
	fields = append(fields, s.Fields()...)
	edges = append(edges, s.Edges()...)
	parents := map[string]string{}
	for _, e := range edges {
		if d := e.Descriptor(); d.Field != "" && d.Inverse {
			parents[d.Field] = d.Type
		}
	}
	var out []member
	for _, f := range fields {
		d := f.Descriptor()
		if d.Name == "id" || d.Name == "team_id" || d.Name == "version" { // the server keeps these
			continue
		}
		m := member{name: d.Name, typ: d.Info.Type, ident: d.Info.Ident, parent: parents[d.Name]}
		for _, a := range d.Annotations {
			if fa, ok := a.(annotation.Field); ok && fa.Date {
				m.date = true
			}
		}
		out = append(out, m)
	}
	return out
}

// sample is a value of the member's declared type that a lossy store would damage.
func sample(m member, parents map[string]string) any {
	if m.parent != "" {
		return parents[m.parent]
	}
	switch m.typ {
	case field.TypeString:
		return fmt.Sprintf("%s: “curly” 'single' \"double\" \\ back ✓ 数据", m.name)
	case field.TypeInt64:
		return int64(9007199254740993) // beyond float64's exact integers
	case field.TypeFloat64:
		return 1234.5678
	case field.TypeBool:
		return true
	case field.TypeTime:
		if m.date {
			return time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC)
		}
		return time.Date(2026, 2, 28, 23, 59, 58, 123456000, time.UTC)
	case field.TypeJSON:
		if m.ident == "map[string]string" {
			return map[string]string{"schema-1": "source-a", "ü": "ß"}
		}
		return json.RawMessage(`{"nested":{"list":[1,2.5,"s",true,null]},"big":9007199254740993,"empty":{}}`)
	}
	panic("no sample for " + m.name)
}

// entClient returns the per-type client of ent's client, e.g. client.Customer.
func entClient(c *ent.Client, typ string) reflect.Value {
	v := reflect.ValueOf(c).Elem().FieldByName(typ)
	if !v.IsValid() {
		panic("ent client has no " + typ)
	}
	return v
}

func call(v reflect.Value, method string, args ...any) []reflect.Value {
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		in[i] = reflect.ValueOf(a)
	}
	return v.MethodByName(method).Call(in)
}

// save runs a builder's Save and returns the entity or the error.
func save(ctx context.Context, builder reflect.Value) (reflect.Value, error) {
	out := call(builder, "Save", ctx)
	if err, _ := out[1].Interface().(error); err != nil {
		return reflect.Value{}, err
	}
	return out[0], nil
}

func get(t *testing.T, ctx context.Context, c *ent.Client, typ, id string) reflect.Value {
	t.Helper()
	out := call(entClient(c, typ), "Get", ctx, id)
	if err, _ := out[1].Interface().(error); err != nil {
		t.Fatalf("reading %s %s back: %v", typ, id, err)
	}
	return out[0].Elem()
}

// ent's own naming: the Go name of a field and its column (which is also
// the name its mutations take).
var (
	pascal = gen.Funcs["pascal"].(func(string) string)
	snake  = gen.Funcs["snake"].(func(string) string)
)

// goField finds an entity's struct field by the schema's field name.
func goField(entity reflect.Value, name string) reflect.Value {
	v := entity.FieldByName(pascal(name))
	if !v.IsValid() {
		panic("entity has no field " + name)
	}
	return v
}

func mutation(builder reflect.Value) entgo.Mutation {
	return call(builder, "Mutation")[0].Interface().(entgo.Mutation)
}

func TestEveryResourceIsTested(t *testing.T) {
	if len(resources) != 17 {
		t.Fatalf("the contract has 17 resources, the test lists %d", len(resources))
	}
	for _, r := range resources {
		found := false
		for _, a := range r.Annotations() {
			_, found = a.(annotation.Resource)
			if found {
				break
			}
		}
		if !found {
			t.Errorf("%s has no annotation.Resource", typeName(r))
		}
	}
}

func TestRoundTrip(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		c := dbtest.Ent(database)
		team := c.Team.Create().SetID(1).SetName("default").SaveX(context.Background())
		ctx := tenant.WithTeam(context.Background(), team.ID)
		parents := map[string]string{}
		for _, r := range resources {
			typ := typeName(r)
			members := membersOf(t, r)
			t.Run(typ, func(t *testing.T) {
				id := "round-trip-" + typ
				create := call(entClient(c, typ), "Create")[0]
				call(create, "SetID", id)
				m := mutation(create)
				mustSet(t, m, "team_id", team.ID)
				want := map[string]any{}
				for _, mem := range members {
					want[mem.name] = sample(mem, parents)
					mustSet(t, m, snake(mem.name), want[mem.name])
				}
				if _, err := save(ctx, create); err != nil {
					t.Fatalf("creating %s: %v", typ, err)
				}
				parents[typ] = id

				got := get(t, ctx, c, typ, id)
				for _, mem := range members {
					assertEqual(t, mem, want[mem.name], goField(got, mem.name))
				}

				// Clearing every member stores null, and null reads back.
				update := call(entClient(c, typ), "UpdateOneID", id)[0]
				um := mutation(update)
				for _, mem := range members {
					if err := um.ClearField(snake(mem.name)); err != nil {
						t.Fatalf("clearing %s: %v", mem.name, err)
					}
				}
				if _, err := save(ctx, update); err != nil {
					t.Fatalf("clearing %s: %v", typ, err)
				}
				got = get(t, ctx, c, typ, id)
				for _, mem := range members {
					if v := goField(got, mem.name); !v.IsZero() {
						t.Errorf("%s.%s: want null after clearing, got %v", typ, mem.name, v.Interface())
					}
				}
				// Restore the values, so children created later name a full parent.
				restore := call(entClient(c, typ), "UpdateOneID", id)[0]
				for _, mem := range members {
					mustSet(t, mutation(restore), snake(mem.name), want[mem.name])
				}
				if _, err := save(ctx, restore); err != nil {
					t.Fatalf("restoring %s: %v", typ, err)
				}
			})
		}
	})
}

func mustSet(t *testing.T, m entgo.Mutation, name string, v any) {
	t.Helper()
	if err := m.SetField(name, v); err != nil {
		t.Fatalf("setting %s to %v: %v", name, v, err)
	}
}

// assertEqual compares a value read back with the one written: exactly, but
// for times (the same instant, or the same calendar day for a Date) and JSON
// documents (the same document; PostgreSQL's jsonb respaces it).
func assertEqual(t *testing.T, m member, want any, got reflect.Value) {
	t.Helper()
	if got.Kind() == reflect.Pointer {
		if got.IsNil() {
			t.Errorf("%s: want %v, got null", m.name, want)
			return
		}
		got = got.Elem()
	}
	g := got.Interface()
	switch w := want.(type) {
	case time.Time:
		gt := g.(time.Time)
		if m.date && gt.Format(time.DateOnly) != w.Format(time.DateOnly) {
			t.Errorf("%s: want date %s, got %s", m.name, w.Format(time.DateOnly), gt)
		}
		if !m.date && !gt.Equal(w) {
			t.Errorf("%s: want %s, got %s", m.name, w.Format(time.RFC3339Nano), gt.Format(time.RFC3339Nano))
		}
	case json.RawMessage:
		if !sameJSON(t, w, g.(json.RawMessage)) {
			t.Errorf("%s: want %s, got %s", m.name, w, g)
		}
	default:
		if !reflect.DeepEqual(want, g) {
			t.Errorf("%s: want %#v, got %#v", m.name, want, g)
		}
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	decode := func(raw []byte) any {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("decoding %s: %v", raw, err)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

func TestServerMadeIDsAreUUIDv7(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, database *db.DB) {
		c := dbtest.Ent(database)
		team := c.Team.Create().SetID(1).SetName("default").SaveX(context.Background())
		ctx := tenant.WithTeam(context.Background(), team.ID)
		cu := c.Customer.Create().SetTeamID(team.ID).SaveX(ctx)
		u, err := uuid.Parse(cu.ID)
		if err != nil || u.Version() != 7 {
			t.Fatalf("server-made id %q is not a UUIDv7 (%v)", cu.ID, err)
		}
	})
}
