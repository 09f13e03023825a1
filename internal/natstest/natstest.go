// Package natstest runs a NATS server with JetStream of a test's own —
// Debian's nats-server on a free port, its store in a temporary folder —
// which the test may stop and start again, as a broker outage.
package natstest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Server is a NATS server of a test's own.
type Server struct {
	tb     testing.TB
	bin    string
	dir    string
	conf   string // its configuration file
	port   int
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts a NATS server with JetStream, stopped when tb ends. Without
// nats-server (Debian: apt-get install nats-server) the test is skipped,
// or under CI fails.
func Start(tb testing.TB) *Server { return StartWith(tb, "") }

// StartWith is Start with lines of the server's configuration file
// (max_payload: 4096).
func StartWith(tb testing.TB, config string) *Server {
	tb.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nats-server"); serr == nil {
			bin, err = "/usr/sbin/nats-server", nil
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("nats-server is not installed, and CI requires it (apt-get install nats-server)")
		}
		tb.Skip("nats-server is not installed (apt-get install nats-server)")
	}
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir()}
	s.conf = filepath.Join(s.dir, "nats.conf")
	if err := os.WriteFile(s.conf, []byte(config+"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	// A free port may be taken by another process before the server binds
	// it (tests of other packages run at once): then try another.
	for attempt := 1; ; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		s.port = l.Addr().(*net.TCPAddr).Port
		l.Close()
		err = s.start()
		if err == nil {
			break
		}
		if attempt == 3 {
			tb.Fatal(err)
		}
	}
	tb.Cleanup(s.Stop)
	return s
}

// URL is the server's URL.
func (s *Server) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

// Resume starts the server (again, after Stop: on the same port, with the
// same store) and waits until it takes connections.
func (s *Server) Resume() {
	s.tb.Helper()
	if err := s.start(); err != nil {
		s.tb.Fatal(err)
	}
}

// start starts the server on its port and waits until NATS answers there:
// its INFO line, not merely a listener, which may be another process's.
func (s *Server) start() error {
	s.cmd = exec.Command(s.bin, "-c", s.conf, "-a", "127.0.0.1", "-p", fmt.Sprint(s.port), "-js", "-sd", filepath.Join(s.dir, "store"))
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) { cmd.Wait(); close(exited) }(s.cmd, s.exited)
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case <-s.exited:
			s.cmd = nil
			return fmt.Errorf("nats-server exited before it took connections on %d (the port taken?)", s.port)
		default:
		}
		if infoAt(s.port) {
			return nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("nats-server did not answer on %d within 15 s", s.port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// infoAt reports whether a NATS server answers on port: the first line it
// sends a client is INFO.
func infoAt(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.HasPrefix(line, "INFO ")
}

// Stop kills the server (its store is kept for Resume).
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

// Message is a message of a stream.
type Message struct {
	Subject string
	ID      string // Nats-Msg-Id
	Data    []byte
}

// Messages reads every message of the stream at url, in the stream's order
// (none when the stream does not exist).
func Messages(tb testing.TB, url, stream string) []Message {
	tb.Helper()
	js, ctx, done := jetStream(tb, url)
	defer done()
	s, err := js.Stream(ctx, stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	var out []Message
	for seq := info.State.FirstSeq; seq > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, Message{Subject: m.Subject, ID: m.Header.Get(jetstream.MsgIDHeader), Data: m.Data})
	}
	return out
}

// CreateStream makes a stream of the publisher's subjects (records.>)
// whose duplicate window is dup.
func CreateStream(tb testing.TB, url, stream string, dup time.Duration) {
	tb.Helper()
	js, ctx, done := jetStream(tb, url)
	defer done()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{"records.>"}, Duplicates: dup}); err != nil {
		tb.Fatal(err)
	}
}

// jetStream connects to the server at url, for 30 s at most; done closes
// the connection.
func jetStream(tb testing.TB, url string) (js jetstream.JetStream, ctx context.Context, done func()) {
	tb.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		tb.Fatal(err)
	}
	if js, err = jetstream.New(nc); err != nil {
		nc.Close()
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	return js, ctx, func() { cancel(); nc.Close() }
}
