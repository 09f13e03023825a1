// Command natslag reads a stream the records service publishes to and
// prints how late its events reached JetStream: for each message, the time
// JetStream stored it less the event's occurred_at, as percentiles. With
// -since, only events that occurred from then on (RFC 3339) are counted.
//
//	go run ./bench/cmd/natslag -url nats://127.0.0.1:4222 -stream RECORDS
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	url := flag.String("url", nats.DefaultURL, "NATS URL")
	stream := flag.String("stream", "RECORDS", "stream")
	since := flag.String("since", "", "count only events from this time on (RFC 3339)")
	flag.Parse()
	if err := run(*url, *stream, *since); err != nil {
		fmt.Fprintln(os.Stderr, "natslag:", err)
		os.Exit(1)
	}
}

func run(url, stream, since string) error {
	var from time.Time
	if since != "" {
		var err error
		if from, err = time.Parse(time.RFC3339Nano, since); err != nil {
			return err
		}
	}
	nc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return err
	}
	// Messages stored before from hold events that occurred before it, so
	// the read starts there; and the consumer is dropped by the server a
	// few seconds after the read ends, so that it costs the broker nothing
	// while a later run is measured.
	cfg := jetstream.OrderedConsumerConfig{InactiveThreshold: 5 * time.Second}
	if !from.IsZero() {
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &from
	}
	cons, err := s.OrderedConsumer(ctx, cfg)
	if err != nil {
		return err
	}
	var lags []time.Duration
	for last := uint64(0); last < info.State.LastSeq; {
		batch, err := cons.Fetch(1000, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return err
		}
		n := 0
		for m := range batch.Messages() {
			n++
			md, err := m.Metadata()
			if err != nil {
				return err
			}
			last = md.Sequence.Stream
			var e struct {
				OccurredAt time.Time `json:"occurred_at"`
			}
			if err := json.Unmarshal(m.Data(), &e); err != nil {
				return err
			}
			if !e.OccurredAt.Before(from) {
				lags = append(lags, md.Timestamp.Sub(e.OccurredAt))
			}
		}
		if n == 0 {
			break
		}
	}
	if len(lags) == 0 {
		return fmt.Errorf("no events in %s", stream)
	}
	slices.Sort(lags)
	at := func(q float64) time.Duration { return lags[min(len(lags)-1, int(q*float64(len(lags))))] }
	fmt.Printf("events %d  p50 %v  p90 %v  p99 %v  max %v\n", len(lags),
		at(.5).Round(time.Millisecond), at(.9).Round(time.Millisecond), at(.99).Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond))
	return nil
}
