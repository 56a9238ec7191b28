package lsp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxMessage is the largest message body the server reads, in bytes: a
// flow file is far smaller, and a bigger Content-Length is a broken peer.
const maxMessage = 64 << 20

// errBadHeader is a message whose header the server cannot read.
var errBadHeader = errors.New("bad message header")

// readFrame reads one message body framed as the base protocol frames
// it: header lines ("Content-Length: N", optionally "Content-Type"), an
// empty line, then N bytes. It returns io.EOF at the end of the input
// between messages.
func readFrame(r *bufio.Reader) ([]byte, error) {
	tp := textproto.NewReader(r)
	length := -1
	first := true
	for {
		line, err := tp.ReadLine()
		if err != nil {
			if first && errors.Is(err, io.EOF) && line == "" {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading a message header: %w", err)
		}
		first = false
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: %q", errBadHeader, line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: Content-Length %q", errBadHeader, value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", errBadHeader)
	}
	if length > maxMessage {
		return nil, fmt.Errorf("%w: Content-Length %d is over %d", errBadHeader, length, maxMessage)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("reading a message body: %w", err)
	}
	return body, nil
}

// writer writes framed messages; it is safe for concurrent use (replies
// and published diagnostics come from different goroutines).
type writer struct {
	mu sync.Mutex
	w  io.Writer
}

// write encodes msg and writes it with its header.
func (w *writer) write(msg jsonrpc.Message) error {
	body, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := fmt.Fprintf(w.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return fmt.Errorf("writing a message: %w", err)
	}
	if _, err := w.w.Write(body); err != nil {
		return fmt.Errorf("writing a message: %w", err)
	}
	return nil
}
