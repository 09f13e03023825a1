package migrate

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/lib/pq"
)

// DataError is a migration the records already stored cannot take: a
// member made unique that holds one value twice, or made required that
// holds nulls. Nothing of the migration is applied.
type DataError struct {
	Migration string
	Table     string
	Column    string
	Unique    bool // else required
	Err       error
}

func (e *DataError) Error() string {
	if e.Unique {
		return fmt.Sprintf("migration %s: the records of %s hold the same value of %s more than once, so it cannot be made unique; "+
			"change or remove the duplicates (SELECT %s, count(*) FROM %s GROUP BY 1 HAVING count(*) > 1) and migrate again, "+
			"which applies it whole: it is not recorded as applied, and what it had changed was undone", e.Migration, e.Table, e.Column, e.Column, e.Table)
	}
	return fmt.Sprintf("migration %s: records of %s hold null in %s, so it cannot be made required; "+
		"fill them (or give the member a Default in the schema) and migrate again, which applies it whole: "+
		"it is not recorded as applied, and what it had changed was undone",
		e.Migration, e.Table, e.Column)
}

func (e *DataError) Unwrap() error { return e.Err }

// sqliteConstraint reads SQLite's words of a constraint a statement broke.
var sqliteConstraint = regexp.MustCompile(`(UNIQUE|NOT NULL) constraint failed: ([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)`)

// pqDuplicated reads the column from PostgreSQL's detail of a unique index
// it could not build: Key (isbn)=(978…) is duplicated.
var pqDuplicated = regexp.MustCompile(`^Key \(([^)]+)\)=`)

// explain tells what in the stored records keeps migration m from applying,
// when that is what err says; otherwise err as it is.
func explain(m Migration, err error) error {
	var pe *pq.Error
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505":
			col := pe.Column
			if mm := pqDuplicated.FindStringSubmatch(pe.Detail); mm != nil {
				col = mm[1]
			}
			return &DataError{Migration: m.Name, Table: pe.Table, Column: col, Unique: true, Err: err}
		case "23502":
			return &DataError{Migration: m.Name, Table: pe.Table, Column: pe.Column, Err: err}
		}
		return err
	}
	if mm := sqliteConstraint.FindStringSubmatch(err.Error()); mm != nil {
		// SQLite alters a table by copying it into new_<table> (as the
		// generated migrations do): the records are the table's.
		table := strings.TrimPrefix(mm[2], "new_")
		return &DataError{Migration: m.Name, Table: table, Column: mm[3], Unique: mm[1] == "UNIQUE", Err: err}
	}
	return err
}
