package engine

import (
	"database/sql"
	"testing"
	"time"
)

// imageCustomer is a record of the shape of a customer, for images: its
// nullable members in the sql.Null holders the generated rows use.
type imageCustomer struct {
	ID, Team, Version                                  int64
	Key                                                string
	SSO, Email, First, Last, Phone, Pay, Stamp, Active sql.Null[string]
	Created, Updated                                   time.Time
	Score                                              sql.Null[float64]
	Flag                                               sql.Null[bool]
}

var imageCustomers = &Resource[imageCustomer]{
	Object: "customer",
	Columns: []string{"id", "team_id", "version", "key", "sso_id", "email", "firstName", "lastName", "phone",
		"payment_customer_id", "timestamp", "activationDate", "created_at", "updated_at", "score", "flag"},
	Scan: func(rows Row) (*imageCustomer, error) {
		c := new(imageCustomer)
		return c, rows.Scan(&c.ID, &c.Team, &c.Version, &c.Key, &c.SSO, &c.Email, &c.First, &c.Last, &c.Phone,
			&c.Pay, &c.Stamp, &c.Active, &c.Created, &c.Updated, &c.Score, &c.Flag)
	},
}

// An image as PostgreSQL's row_to_json writes it, escapes included.
const customerImage = `{"id":17,"team_id":1,"version":2,"key":"c-\u00e9\"1","sso_id":null,"email":"new@example.com",` +
	`"firstName":"New","lastName":"Cust\\omer","phone":"+1 555 0100","payment_customer_id":null,"timestamp":null,` +
	`"activationDate":"2026-01-01","created_at":"2026-11-25T21:22:06.123456+00:00","updated_at":"2026-11-25T21:22:07.5+01:00",` +
	`"score":1.5,"flag":true}`

// An image reads into the record its row would have scanned into.
func TestScanImage(t *testing.T) {
	c, err := imageCustomers.scanImage([]byte(customerImage))
	if err != nil {
		t.Fatal(err)
	}
	created, _ := time.Parse(time.RFC3339Nano, "2026-11-25T21:22:06.123456Z")
	updated, _ := time.Parse(time.RFC3339Nano, "2026-11-25T21:22:07.5+01:00")
	want := imageCustomer{ID: 17, Team: 1, Version: 2, Key: "c-é\"1",
		Email: sql.Null[string]{V: "new@example.com", Valid: true}, First: sql.Null[string]{V: "New", Valid: true},
		Last: sql.Null[string]{V: `Cust\omer`, Valid: true}, Phone: sql.Null[string]{V: "+1 555 0100", Valid: true},
		Active: sql.Null[string]{V: "2026-01-01", Valid: true}, Created: created, Updated: updated,
		Score: sql.Null[float64]{V: 1.5, Valid: true}, Flag: sql.Null[bool]{V: true, Valid: true}}
	if !c.Created.Equal(want.Created) || !c.Updated.Equal(want.Updated) {
		t.Fatalf("times %v %v, want %v %v", c.Created, c.Updated, want.Created, want.Updated)
	}
	c.Created, c.Updated = want.Created, want.Updated
	for _, n := range []*sql.Null[string]{&c.SSO, &c.Email, &c.First, &c.Last, &c.Phone, &c.Pay, &c.Stamp, &c.Active} {
		if !n.Valid {
			n.V = "" // what a null holds besides does not matter
		}
	}
	if *c != want {
		t.Fatalf("got  %+v\nwant %+v", *c, want)
	}
	if _, err := imageCustomers.scanImage([]byte(`{"id":"x"`)); err == nil {
		t.Fatal("a malformed image read")
	}
}

func BenchmarkScanImage(b *testing.B) {
	image := []byte(customerImage)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := imageCustomers.scanImage(image); err != nil {
			b.Fatal(err)
		}
	}
}
