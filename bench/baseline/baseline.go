// Package baseline is the yardstick of the service's throughput: what a
// developer would write by hand for two of its routes — net/http,
// database/sql with prepared statements, encoding/json — over the same
// database, tables and queries (scoped to a team, as the service's are).
// It has no authentication, logging or limits; the service must come
// within 10% of it regardless. bench/cmd/baseline serves it.
package baseline

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"runtime"
	"strconv"
	"strings"

	_ "github.com/lib/pq"
	_ "modernc.org/sqlite"

	// On SQLite the schema's event triggers read the request's details
	// through current_setting, a function the service registers with the
	// driver (internal/db); any process writing the record tables needs it.
	// The baseline never sets them: its writes record their events, as the
	// service's do, naming no request or token. Its connections take the
	// service's pragmas: the same durability (synchronous NORMAL under
	// write-ahead logging) and locking.
	"records/internal/db"
)

// customer is a row of customers, as encoding/json writes it.
type customer struct {
	ID                string  `json:"id"`
	SsoID             *string `json:"sso_id"`
	Email             *string `json:"email"`
	FirstName         *string `json:"firstName"`
	LastName          *string `json:"lastName"`
	Phone             *string `json:"phone"`
	PaymentCustomerID *string `json:"payment_customer_id"`
	Timestamp         *string `json:"timestamp"`
	ActivationDate    *string `json:"activationDate"`
}

const columns = `id, sso_id, email, first_name, last_name, phone, payment_customer_id, timestamp, activation_date`

// Open opens a database URL (sqlite:PATH or postgres://…) as the baseline
// would: a pool of four connections per core.
func Open(url string) (*sql.DB, bool, error) {
	driver, dsn, postgres := "postgres", url, true
	if p, ok := strings.CutPrefix(url, "sqlite:"); ok {
		driver, dsn, postgres = "sqlite", "file:"+p+"?"+db.SQLitePragmas, false
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, false, err
	}
	n := 4 * runtime.GOMAXPROCS(0)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	return db, postgres, nil
}

// Handler serves, for team, GET /customers/{id} and GET /customers?limit=N,
// and the writes: POST /customers (create), PATCH /customers/{id} (email
// and firstName), PUT /return_line_items/{id} (an upsert) — each one
// prepared statement with RETURNING, autocommitted.
func Handler(db *sql.DB, postgres bool, team int) (http.Handler, error) {
	ph := func(int) string { return "?" }
	if postgres {
		ph = func(n int) string { return "$" + strconv.Itoa(n) }
	}
	byID, err := db.Prepare(`SELECT ` + columns + ` FROM customers WHERE id = ` + ph(1) + ` AND team_id = ` + ph(2))
	if err != nil {
		return nil, err
	}
	page, err := db.Prepare(`SELECT ` + columns + ` FROM customers WHERE team_id = ` + ph(1) + ` ORDER BY id LIMIT ` + ph(2) + ` OFFSET ` + ph(3))
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	if err := writes(mux, db, ph, team); err != nil {
		return nil, err
	}
	scan := func(s interface{ Scan(...any) error }) (customer, error) {
		var c customer
		err := s.Scan(&c.ID, &c.SsoID, &c.Email, &c.FirstName, &c.LastName, &c.Phone, &c.PaymentCustomerID, &c.Timestamp, &c.ActivationDate)
		return c, err
	}
	mux.HandleFunc("GET /customers/{id}", func(w http.ResponseWriter, r *http.Request) {
		c, err := scan(byID.QueryRowContext(r.Context(), r.PathValue("id"), team))
		if err == sql.ErrNoRows {
			http.NotFound(w, r)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(c)
	})
	mux.HandleFunc("GET /customers", func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		if limit <= 0 {
			limit = 100
		}
		rows, err := page.QueryContext(r.Context(), team, limit+1, 0)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer rows.Close()
		out := struct {
			Customers []customer `json:"customers"`
			Paging    struct {
				Limit   int  `json:"limit"`
				Offset  int  `json:"offset"`
				HasMore bool `json:"has_more"`
			} `json:"paging"`
		}{Customers: make([]customer, 0, limit+1)}
		for rows.Next() {
			c, err := scan(rows)
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			out.Customers = append(out.Customers, c)
		}
		if len(out.Customers) > limit {
			out.Customers, out.Paging.HasMore = out.Customers[:limit], true
		}
		out.Paging.Limit = limit
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
	return mux, nil
}
