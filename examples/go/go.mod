module example.com/records-quickstart

go 1.26

require records/client v0.0.0-00010101000000-000000000000

// The client of this repository; a program elsewhere points the replace at
// its checkout, or requires the client by its published path instead.
replace records/client => ../../client
