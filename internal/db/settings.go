package db

import (
	sqldriver "database/sql/driver"

	"modernc.org/sqlite"

	"records/internal/stamp"
)

// SQLite has no settings a statement can pass to the triggers it fires, as
// PostgreSQL's set_config and current_setting do; the event triggers
// (package gen) need one, records.meta, on both databases. These are the
// same two functions for SQLite, kept in the process: SQLite runs one write
// at a time, and every SQLite write of the process holds sqliteWrites,
// whichever database it writes to, so the setting a write's statement made
// is the one its triggers read. A write in a transaction sees the settings
// its own statements made; every write starts from none (resetSettings).
var (
	sqliteWrites = newFIFOLock()
	settings     = map[string]string{}
)

func init() {
	sqlite.MustRegisterScalarFunction("set_config", 3, func(_ *sqlite.FunctionContext, args []sqldriver.Value) (sqldriver.Value, error) {
		name, _ := args[0].(string)
		value, _ := args[1].(string)
		settings[name] = value
		return value, nil
	})
	// records_now is the time of a change's event in microseconds, read
	// from the clock the records' own stamps are (package stamp): SQLite's
	// clock has milliseconds only, so an event could precede the stamp of
	// the change it tells of, and since= would miss it.
	sqlite.MustRegisterScalarFunction("records_now", 0, func(*sqlite.FunctionContext, []sqldriver.Value) (sqldriver.Value, error) {
		return stamp.Now().UnixMicro(), nil
	})
	sqlite.MustRegisterScalarFunction("current_setting", 2, func(_ *sqlite.FunctionContext, args []sqldriver.Value) (sqldriver.Value, error) {
		name, _ := args[0].(string)
		if v, ok := settings[name]; ok {
			return v, nil
		}
		return nil, nil
	})
}

// resetSettings forgets the settings of the last write; the caller holds
// sqliteWrites.
func resetSettings() { clear(settings) }
