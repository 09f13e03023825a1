// Quickstart of the Go client: a program of its own module that requires
// the client (see go.mod). Run it against a server:
//
//	RECORDS_URL=http://127.0.0.1:8080 TOKEN=rk_… go run .
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log"
	"os"

	"records/client"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	c := client.New(os.Getenv("RECORDS_URL"), client.WithToken(os.Getenv("TOKEN")))

	// A create that is safe to retry: the same key answers the same record.
	key := rand.Text()
	ret, err := c.Returns.Create(ctx, client.ReturnWrite{Status: client.Set("open"), OrderID: client.Set("o-17")},
		client.IdempotencyKey(key))
	if err != nil {
		return err
	}
	fmt.Println("created", ret.ID, "at version", ret.Version)

	// A problem names the members at fault.
	_, err = c.Customers.List(ctx, &client.ListParams{Limit: 5000})
	var p *client.Problem
	if errors.As(err, &p) && p.Code == client.CodeInvalidRequest {
		fmt.Println("refused:", p.Errors[0].Member, p.Errors[0].Problem)
	}

	// Every open return, page after page by cursor; filters nest as in a JSON body.
	open := 0
	for r, err := range c.Returns.All(ctx, &client.ListParams{
		Filter: client.Filter{"status": "open", "created_date": client.Ops{"gte": "2026-01-01"}}, OrderBy: "-created_date"}) {
		if err != nil {
			return err
		}
		open++
		_ = r.ID
	}
	fmt.Println("open returns:", open)

	// Written only if nobody changed it since it was read (else a 412 problem).
	if _, err := c.Returns.Patch(ctx, ret.ID, client.ReturnWrite{OrderID: client.Null[string]()}, client.IfVersion(ret.Version)); err != nil {
		return err
	}

	// An operation of the contract answers its own envelope: {returns: [record]}.
	res, err := c.UpdateReturn(ctx, ret.ID, client.ReturnWrite{Status: client.Set("received")})
	if err != nil {
		return err
	}
	fmt.Println("updated", res.Record().ID, "to", *res.Record().Status, "at version", res.Returns[0].Version)
	return nil
}
