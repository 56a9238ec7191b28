// Package redistest starts throwaway redis-server processes for tests, the
// way net/http/httptest starts HTTP servers: each on a free loopback port,
// with persistence off and its working directory in the test's temporary
// directory, stopped when the test ends.
//
// The tests of the Redis reply store must run wherever `go test ./...`
// runs, so a missing redis-server fails the test (with how to install it)
// instead of skipping it.
package redistest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Install says how to get redis-server; test failures quote it.
const Install = "install it with `apt-get install -y redis-server` (Debian, Ubuntu; as root), " +
	"`brew install redis` (macOS) or from https://redis.io/download, or set REDIS_SERVER to its path"

// startTimeout bounds how long a server may take to answer PING.
const startTimeout = 10 * time.Second

// Server is a running redis-server.
type Server struct {
	// Addr is the server's host:port on loopback.
	Addr string
	// URL is Addr as a redis:// URL, for Open.
	URL string

	cmd  *exec.Cmd
	done chan struct{}
	log  *bytes.Buffer
}

// Binary returns the path of redis-server: $REDIS_SERVER, or the first
// redis-server on $PATH.
func Binary() (string, error) {
	if p := os.Getenv("REDIS_SERVER"); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("redis-server is not installed: %s", Install)
	}
	return p, nil
}

// Start starts a redis-server for the test and stops it when the test
// ends. It fails the test when redis-server is missing or does not start.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := Binary()
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	var last error
	// A free port can be taken between choosing it and redis binding it:
	// try a few.
	for range 5 {
		port, err := freePort()
		if err != nil {
			tb.Fatalf("choose a port for redis-server: %v", err)
		}
		s, err := start(bin, dir, port)
		if err == nil {
			tb.Cleanup(s.Stop)
			return s
		}
		last = err
	}
	tb.Fatalf("redis-server did not start: %v", last)
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func start(bin, dir string, port int) (*Server, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(bin,
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", dir,
		"--logfile", "",
		"--daemonize", "no",
	)
	log := &bytes.Buffer{}
	cmd.Stdout = log
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", filepath.Base(bin), err)
	}
	s := &Server{Addr: addr, URL: "redis://" + addr + "/0", cmd: cmd, done: make(chan struct{}), log: log}
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	deadline := time.Now().Add(startTimeout)
	for {
		if err := ping(addr); err == nil {
			return s, nil
		} else if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("no answer to PING on %s after %s: %v; its output:\n%s", addr, startTimeout, err, log)
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("redis-server exited at start: %v; its output:\n%s", cmd.ProcessState, strings.TrimSpace(log.String()))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ping sends PING and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// Stop stops the server and waits for it to exit. It is safe to call more
// than once.
func (s *Server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// Client returns a go-redis client on s, closed when the test ends: for
// stores to share, and for looking at what they wrote.
func (s *Server) Client(tb testing.TB) *goredis.Client {
	tb.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr})
	tb.Cleanup(func() { c.Close() })
	return c
}

// quiet is a go-redis logger that drops every line.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// Quiet silences go-redis's own log lines (the failed dials to dead
// servers that tests make on purpose). It sets go-redis's process-wide
// logger, so call it from a test package's init.
func Quiet() { goredis.SetLogger(quiet{}) }
