package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"records/client"
	"records/internal/resources"
)

// testGenericRoutes drives every resource's service through every method
// it has — create, bulk create, get, patch, list and its iterator, history
// and its iterator, delete — finding the services and methods by
// reflection, so that a new resource is driven without a line here.
func testGenericRoutes(t *testing.T, e *env) {
	parents := parentMembers(t)
	cv := reflect.ValueOf(e.c).Elem()
	for i := range cv.NumField() {
		f := cv.Type().Field(i)
		if !f.IsExported() || f.Name == "Events" || f.Name == "Webhooks" {
			continue
		}
		runPart(t, f.Name, func(t *testing.T) {
			s := &service{t: t, e: e, name: f.Name, v: cv.Field(i), skip: parents}
			s.lifecycle()
		})
	}
}

// service is a resource's service, called by reflection.
type service struct {
	t    *testing.T
	e    *env
	name string
	v    reflect.Value
	skip map[string]bool // members naming a parent: left out of writes
}

// creators create a record of a service whose create route an operation
// of the route table has taken (POST /v1/cases is Update Case).
var creators = map[string]func(e *env, w reflect.Value) (any, error){
	"Cases": func(e *env, w reflect.Value) (any, error) {
		rec := w.Interface().(client.CaseWrite)
		r, err := e.c.UpdateCase(context.Background(), rec.ID, rec)
		if err != nil {
			return nil, err
		}
		return r.Record(), nil
	},
}

// create creates a record from the write w, and answers it.
func (s *service) create(w reflect.Value) any {
	s.t.Helper()
	if got, ok := s.call("Create", w.Interface()); ok {
		return got.Interface()
	}
	create := creators[s.name]
	if create == nil {
		s.t.Fatalf("%s has no Create, and the test no other way to create one", s.name)
	}
	return must(create(s.e, w))
}

// parentMembers are the members that name a parent record ("Type.member"),
// from the OpenAPI document: a write naming no parent leaves them out.
func parentMembers(t *testing.T) map[string]bool {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(resources.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for name, s := range doc.Components.Schemas {
		// A record takes its members from its sparse form (allOf), where
		// they are written: they are the record type's members too.
		record := strings.TrimSuffix(name, "Sparse")
		for m, p := range s.Properties {
			if strings.HasPrefix(p.Description, "The id of the") {
				out[name+"."+m], out[record+"."+m] = true, true
			}
		}
	}
	return out
}

// call calls the method by name, returning its answer as JSON members; ok
// is false when the service has no such method.
func (s *service) call(method string, args ...any) (answer reflect.Value, ok bool) {
	s.t.Helper()
	m := s.v.MethodByName(method)
	if !m.IsValid() {
		return reflect.Value{}, false
	}
	in := []reflect.Value{reflect.ValueOf(context.Background())}
	for i, a := range args {
		v := reflect.ValueOf(a)
		if a == nil {
			v = reflect.Zero(m.Type().In(i + 1))
		}
		in = append(in, v)
	}
	out := m.Call(in)
	if err, _ := out[len(out)-1].Interface().(error); err != nil {
		s.t.Fatalf("%s.%s: %v", s.name, method, err)
	}
	return out[0], true
}

// members is an answer as JSON members.
func members(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// write makes a value of the service's write type with every member set,
// to values that differ with n, but the parents it names.
func (s *service) write(n int, id string) (reflect.Value, map[string]any) {
	s.t.Helper()
	wt := s.writeType()
	resource := strings.TrimSuffix(wt.Name(), "Write")
	members := map[string]any{"id": id}
	for i := range wt.NumField() {
		f := wt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		get, ok := f.Type.MethodByName("Get")
		if !ok || s.skip[resource+"."+name] {
			continue // the id, embedded records, parents
		}
		members[name] = sample(get.Type.Out(0), n)
	}
	w := reflect.New(wt)
	b, _ := json.Marshal(members)
	if err := json.Unmarshal(b, w.Interface()); err != nil {
		s.t.Fatalf("%s: %v", wt, err)
	}
	return w.Elem(), members
}

// writeType is the service's write type, which Create or Patch takes.
func (s *service) writeType() reflect.Type {
	if m := s.v.MethodByName("Create"); m.IsValid() {
		return m.Type().In(1)
	}
	if m := s.v.MethodByName("Patch"); m.IsValid() {
		return m.Type().In(2)
	}
	s.t.Fatalf("%s has neither Create nor Patch", s.name)
	return nil
}

var dateType = reflect.TypeFor[client.Date]()

// sample is a value of the member type, differing with n.
func sample(typ reflect.Type, n int) any {
	switch {
	case typ == dateType:
		return fmt.Sprintf("2026-01-%02d", n+1)
	case typ == reflect.TypeFor[time.Time]():
		return fmt.Sprintf("2026-01-02T03:04:%02dZ", n)
	case typ.Kind() == reflect.String:
		return fmt.Sprintf("v%d", n)
	case typ.Kind() == reflect.Int64:
		return n + 1
	case typ.Kind() == reflect.Float64:
		return float64(n) + 0.5
	case typ.Kind() == reflect.Bool:
		return n%2 == 0
	case typ.Kind() == reflect.Map:
		return map[string]any{"k": fmt.Sprint(n)}
	}
	panic("no sample of " + typ.String())
}

// same fails unless the answer carries every member written, as written.
func (s *service) same(answer map[string]any, written map[string]any) {
	s.t.Helper()
	for k, v := range written {
		if fmt.Sprint(answer[k]) != fmt.Sprint(v) {
			s.t.Errorf("%s: member %s answered %v, written %v", s.name, k, answer[k], v)
		}
	}
}

// lifecycle creates, reads, changes, lists and deletes records of the service.
func (s *service) lifecycle() {
	t := s.t
	prefix := strings.ToLower(s.name)
	ids := []string{prefix + "-1", prefix + "-2", prefix + "-3", prefix + "-4"}
	w1, written := s.write(1, ids[0])
	first := members(t, s.create(w1))
	s.same(first, written)
	if first["version"] != 1.0 {
		t.Errorf("a new record's version is 1, got %v", first["version"])
	}

	s.createMany(w1.Type(), ids[1:])

	if got, ok := s.call("Get", ids[0], nil); ok {
		s.same(members(t, got.Interface()), written)
	}
	updates := 0
	if w, _ := s.write(9, ""); true {
		if got, ok := s.call("Patch", ids[0], w.Interface()); ok {
			updates++
			m := members(t, got.Interface())
			if m["version"] != 2.0 {
				t.Errorf("a patched record's version is 2, got %v", m["version"])
			}
		}
	}

	s.list(ids)

	s.history(ids[0], updates)

	if got, ok := s.call("Delete", ids[3]); ok {
		d := got.Interface().(*client.Deleted)
		if d.ID != ids[3] || !d.Deleted || d.Success != 1 {
			t.Errorf("Delete answered %+v", d)
		}
		if get := s.v.MethodByName("Get"); get.IsValid() {
			out := get.Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.ValueOf(ids[3]), reflect.Zero(get.Type().In(2))})
			problem(t, out[1].Interface().(error), 404, client.CodeNotFound)
		}
		s.trash(ids[3], updates > 0, ids[0])
	} else if deleter := deleters[s.name]; deleter != nil {
		must(deleter(s.e, ids[3]))
		s.trash(ids[3], updates > 0, ids[0])
	}
}

// createMany creates records ids (of the write type typ, the second
// onwards of the lifecycle) in one call where the service has CreateMany.
func (s *service) createMany(typ reflect.Type, ids []string) {
	t := s.t
	batch := reflect.MakeSlice(reflect.SliceOf(typ), 0, len(ids))
	for i, id := range ids {
		w, _ := s.write(i+2, id)
		batch = reflect.Append(batch, w)
	}
	if many, ok := s.call("CreateMany", batch.Interface()); ok {
		if many.Len() != len(ids) {
			t.Fatalf("CreateMany answered %d records, want %d", many.Len(), len(ids))
		}
		for i := range ids {
			if got := members(t, many.Index(i).Interface())["id"]; got != ids[i] {
				t.Errorf("CreateMany's record %d is %v, want %s", i, got, ids[i])
			}
		}
	} else {
		for i := range ids {
			s.create(batch.Index(i))
		}
	}
}

// list lists records ids by pages of 3, with their count, and walks them
// with All.
func (s *service) list(ids []string) {
	t := s.t
	params := &client.ListParams{Filter: client.Filter{"id": client.Ops{"in": ids}}, Limit: 3, Count: "exact"}
	if page, ok := s.call("List", params); ok {
		p := members(t, page.Interface())
		paging := p["paging"].(map[string]any)
		if paging["total"] != 4.0 || paging["next_cursor"] == nil {
			t.Errorf("List: want a total of 4 and a next cursor, got %v", paging)
		}
		seq, _ := s.call("All", params)
		var seen []string
		for rec, err := range seq.Seq2() {
			if err.Interface() != nil {
				t.Fatal(err.Interface())
			}
			seen = append(seen, members(t, rec.Interface())["id"].(string))
		}
		if !slices.Equal(seen, ids) {
			t.Errorf("All visited %v, want %v once each, in order", seen, ids)
		}
	}
}

// history reads the events of record id, created and changed updates
// times, by History and HistoryAll.
func (s *service) history(id string, updates int) {
	t := s.t
	history, _ := s.call("History", id, &client.PageParams{Limit: 1})
	events := history.Interface().(*client.EventPage)
	if len(events.Events) != 1 || events.Events[0].Type != s.plural()+".created" {
		t.Errorf("History's first page: want one %s.created event, got %+v", s.plural(), events.Events)
	}
	all, _ := s.call("HistoryAll", id, &client.PageParams{Limit: 1})
	n := 0
	for ev, err := range all.Seq2() {
		if err.Interface() != nil {
			t.Fatal(err.Interface())
		}
		if ev.Interface().(client.Event).Type == "" {
			t.Error("an event without a type")
		}
		n++
	}
	if n != 1+updates {
		t.Errorf("HistoryAll visited %d events, want %d", n, 1+updates)
	}
}

// deleters delete a record of a service whose delete route an operation
// of the route table has taken (DELETE /v1/customers/:id is Delete
// Customer).
var deleters = map[string]func(e *env, id string) (any, error){
	"Customers": func(e *env, id string) (any, error) { return e.c.DeleteCustomer(context.Background(), id) },
}

// trash drives the trash's methods: the trash listed, Restore, Revert (of
// revertable, when it has been patched), Purge.
func (s *service) trash(id string, patched bool, revertable string) {
	t := s.t
	if page, ok := s.call("List", &client.ListParams{Trashed: "only"}); ok {
		if recs := reflect.Indirect(page).Field(0); recs.Len() != 1 || members(t, recs.Index(0).Interface())["deleted_at"] == nil {
			t.Errorf("the trash: want %s with deleted_at, got %v", id, members(t, page.Interface()))
		}
	}
	restored, _ := s.call("Restore", id)
	if m := members(t, restored.Interface()); m["version"] != 3.0 || m["deleted_at"] != nil {
		t.Errorf("Restore answered %v, want the record at version 3, out of the trash", m)
	}
	if patched {
		reverted, _ := s.call("Revert", revertable, int64(1))
		if m := members(t, reverted.Interface()); m["version"] != 3.0 {
			t.Errorf("Revert answered %v, want version 3", m)
		}
		// The history runs oldest first: the revert's update is its last.
		history, _ := s.call("History", revertable, &client.PageParams{Limit: 100})
		evs := history.Interface().(*client.EventPage).Events
		if last := evs[len(evs)-1]; last.RevertedFrom == nil || *last.RevertedFrom != 1 || !strings.HasSuffix(last.Type, ".updated") {
			t.Errorf("the revert's event: want an update with reverted_from 1, got %s %v", last.Type, last.RevertedFrom)
		}
	}
	if got, ok := s.call("Purge", id); ok && !got.Interface().(*client.Deleted).Deleted {
		t.Errorf("Purge answered %+v", got.Interface())
	}
	out := s.v.MethodByName("Restore").Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.ValueOf(id)})
	problem(t, out[1].Interface().(error), 404, client.CodeNotFound)
}

// plural is the resource's plural, as event types name it.
func (s *service) plural() string {
	for _, rt := range client.Routes {
		if strings.HasPrefix(rt.Call, s.name+".History") {
			return strings.Split(rt.Path, "/")[2]
		}
	}
	s.t.Fatalf("no history route of %s", s.name)
	return ""
}

// clientMethods are the methods of the client and of its services, as
// client.Routes names them: "UpdateReturn", "Returns.Create".
func clientMethods() map[string]bool {
	out := map[string]bool{}
	c := reflect.ValueOf(client.New("http://localhost"))
	add := func(prefix string, v reflect.Value) {
		for i := range v.NumMethod() {
			out[prefix+v.Type().Method(i).Name] = true
		}
	}
	add("", c)
	for i := range c.Elem().NumField() {
		if f := c.Elem().Type().Field(i); f.IsExported() {
			add(f.Name+".", c.Elem().Field(i))
		}
	}
	return out
}
