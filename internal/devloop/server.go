package devloop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// serving is the line `records serve` prints once it listens.
var serving = regexp.MustCompile(`^records: serving on (http://\S+)`)

// stopTimeout is how long a server gets to finish after SIGTERM before it
// is killed. Development requests are short; a long one is not worth
// waiting for.
const stopTimeout = 10 * time.Second

// server is a running `records serve`.
type server struct {
	bin  string
	url  string
	cmd  *exec.Cmd
	done chan error // receives Wait's result, then is closed
}

// startServer runs bin serve args and waits until it listens (it has
// migrated the database by then), or exits, or ctx ends. Its standard
// output goes to stdout line by line (the first token's secret is printed
// there), its log to stderr; lines it printed before failing are in the error.
func startServer(ctx context.Context, bin string, args []string, stdout, stderr io.Writer) (*server, error) {
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Stderr = stderr
	cmd.SysProcAttr = childAttr()
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{bin: bin, cmd: cmd, done: make(chan error, 1)}
	listening := make(chan string, 1)
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			fmt.Fprintln(stdout, sc.Text())
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case listening <- m[1]:
				default: // said once already
				}
			}
		}
	}()
	go func() {
		<-lines // Wait closes the pipe: read it to its end first
		s.done <- cmd.Wait()
		close(s.done)
	}()
	select {
	case s.url = <-listening:
		return s, nil
	case err := <-s.done:
		return nil, fmt.Errorf("records serve exited before serving: %v", err)
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

// stop asks the server to finish (SIGTERM: in-flight requests complete)
// and waits for it, killing it after stopTimeout.
func (s *server) stop() error {
	if s == nil {
		return nil
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.cmd.Process.Kill()
	}
	select {
	case err := <-s.done:
		return exitErr(err)
	case <-time.After(stopTimeout):
		s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("records serve did not stop within %s of SIGTERM: killed", stopTimeout)
	}
}

// exitErr drops the error of a server that ended on its signal.
func exitErr(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && strings.Contains(exit.String(), "signal") {
		return nil
	}
	return err
}
