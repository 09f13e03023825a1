package baseline

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// lineItem is a row of return_line_items, as encoding/json writes it.
type lineItem struct {
	ID               string  `json:"id"`
	Version          int64   `json:"version"`
	Amount           *string `json:"amount"`
	Condition        *string `json:"condition"`
	FlatRateShipping *string `json:"flat_rate_shipping"`
	Name             *string `json:"name"`
	Price            *string `json:"price"`
	ReturnID         *string `json:"return_id"`
	SerialNumber     *string `json:"serial_number"`
	SKU              *string `json:"sku"`
	TaxRefunded      *string `json:"tax_refunded"`
}

const lineItemColumns = `id, version, amount, condition, flat_rate_shipping, name, price, return_id, serial_number, sku, tax_refunded`

// writes adds the write endpoints: what a developer would write by hand —
// decode with encoding/json, one prepared statement, RETURNING, encode.
func writes(mux *http.ServeMux, db *sql.DB, ph func(int) string, team int) error {
	phs := func(from, n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = ph(from + i)
		}
		return strings.Join(s, ", ")
	}
	create, err := db.Prepare(`INSERT INTO customers (id, team_id, sso_id, email, first_name, last_name, phone, payment_customer_id, timestamp, activation_date) VALUES (` +
		phs(1, 10) + `) RETURNING ` + columns)
	if err != nil {
		return err
	}
	patch, err := db.Prepare(`UPDATE customers SET email = ` + ph(1) + `, first_name = ` + ph(2) + `, version = version + 1 WHERE id = ` + ph(3) + ` AND team_id = ` + ph(4) + ` RETURNING ` + columns)
	if err != nil {
		return err
	}
	upsert, err := db.Prepare(`INSERT INTO return_line_items (id, team_id, sku, price, name) VALUES (` + phs(1, 5) +
		`) ON CONFLICT (id) DO UPDATE SET sku = excluded.sku, price = excluded.price, name = excluded.name, version = return_line_items.version + 1 WHERE return_line_items.team_id = excluded.team_id RETURNING ` + lineItemColumns)
	if err != nil {
		return err
	}
	scanCustomer := func(row *sql.Row) (customer, error) {
		var c customer
		err := row.Scan(&c.ID, &c.SsoID, &c.Email, &c.FirstName, &c.LastName, &c.Phone, &c.PaymentCustomerID, &c.Timestamp, &c.ActivationDate)
		return c, err
	}
	answer := func(w http.ResponseWriter, status int, v any, err error) {
		if err == sql.ErrNoRows {
			http.NotFound(w, nil)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /customers", func(w http.ResponseWriter, r *http.Request) {
		var in customer
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if in.ID == "" {
			in.ID = uuid.Must(uuid.NewV7()).String()
		}
		c, err := scanCustomer(create.QueryRowContext(r.Context(), in.ID, team, in.SsoID, in.Email, in.FirstName, in.LastName, in.Phone, in.PaymentCustomerID, in.Timestamp, in.ActivationDate))
		answer(w, http.StatusCreated, c, err)
	})
	mux.HandleFunc("PATCH /customers/{id}", func(w http.ResponseWriter, r *http.Request) {
		var in customer
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c, err := scanCustomer(patch.QueryRowContext(r.Context(), in.Email, in.FirstName, r.PathValue("id"), team))
		answer(w, http.StatusOK, c, err)
	})
	mux.HandleFunc("PUT /return_line_items/{id}", func(w http.ResponseWriter, r *http.Request) {
		var in lineItem
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var li lineItem
		err := upsert.QueryRowContext(r.Context(), r.PathValue("id"), team, in.SKU, in.Price, in.Name).Scan(
			&li.ID, &li.Version, &li.Amount, &li.Condition, &li.FlatRateShipping, &li.Name, &li.Price, &li.ReturnID, &li.SerialNumber, &li.SKU, &li.TaxRefunded)
		status := http.StatusOK
		if li.Version == 1 {
			status = http.StatusCreated
		}
		answer(w, status, map[string]any{"data": map[string]any{"insert_return_line_items": map[string]any{"returning": []lineItem{li}}}}, err)
	})
	return nil
}

// BulkInsertCustomers inserts n new customers of team as a hand-written
// bulk would, the floor under the service's bulk create: one transaction,
// one multi-row INSERT … RETURNING (the members of the service's
// benchmark, new UUIDv7 ids), the rows read back and dropped.
func BulkInsertCustomers(ctx context.Context, db *sql.DB, postgres bool, team, n int) error {
	var b strings.Builder
	b.WriteString(`INSERT INTO customers (id, team_id, email, first_name, last_name, phone) VALUES `)
	args := make([]any, 0, 6*n)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j := range 6 {
			if j > 0 {
				b.WriteString(", ")
			}
			if postgres {
				b.WriteString("$" + strconv.Itoa(len(args)+j+1))
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
		args = append(args, uuid.Must(uuid.NewV7()).String(), team, "bulk@example.com", "Bulk", "Customer", "+1 555 0100")
	}
	b.WriteString(` RETURNING ` + columns)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return err
	}
	var c customer
	for rows.Next() {
		if err := rows.Scan(&c.ID, &c.SsoID, &c.Email, &c.FirstName, &c.LastName, &c.Phone, &c.PaymentCustomerID, &c.Timestamp, &c.ActivationDate); err != nil {
			rows.Close()
			return err
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	return tx.Commit()
}
