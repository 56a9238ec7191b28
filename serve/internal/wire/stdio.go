package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxStdioLine bounds one line of the stdio transport, as go-sdk's
// IOTransport bounds a frame.
const maxStdioLine = mcp.DefaultMaxLineLength

// StdioTransport returns the transport serve.StdioTransport documents:
// newline-delimited JSON-RPC over in and out that answers a line it
// cannot take (-32700 or -32600) and reads on, where go-sdk's
// IOTransport stops, and at the end of in closes once every request read
// has been answered, or drain has passed.
func StdioTransport(in io.Reader, out io.Writer, drain time.Duration) mcp.Transport {
	w := &lockedWriter{w: out, pending: map[string]bool{}, idle: make(chan struct{}, 1)}
	pr, pw := io.Pipe()
	go filterLines(in, pw, w, drain)
	return &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: -1}
}

// filterLines copies the lines of in that are JSON-RPC messages to pw,
// answering the others on w, and closes pw at the end of in once w has
// answered every request (or drain has passed).
func filterLines(in io.Reader, pw *io.PipeWriter, w *lockedWriter, drain time.Duration) {
	r := bufio.NewReaderSize(in, 64*1024)
	for {
		line, tooLong, err := readLine(r)
		if tooLong {
			writeError(w, nil, CodeInvalidRequest, fmt.Sprintf("Invalid Request: the line is longer than %d bytes", maxStdioLine))
		} else if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if ids, code, reason := checkMessage(msg); code != 0 {
				writeError(w, ids, code, reason)
			} else {
				w.expect(msg)
				if _, werr := pw.Write(append(msg, '\n')); werr != nil {
					return // the server stopped reading
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				w.wait(drain)
				pw.Close()
			} else {
				pw.CloseWithError(err)
			}
			return
		}
	}
}

// readLine reads one line without its newline. A line longer than
// maxStdioLine is read to its end and dropped: tooLong reports it.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxStdioLine {
			tooLong, buf = true, buf[:0]
		} else {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		return bytes.TrimSuffix(buf, []byte{'\n'}), false, err
	}
}

// checkMessage reports whether msg is a JSON-RPC message or a batch of
// them, none of whose members repeats (ReadTargets); when it is not, the code and reason of the error to answer, and
// the request's id when one can be read.
func checkMessage(msg []byte) (id any, code int64, reason string) {
	if !json.Valid(msg) {
		var v any
		err := json.Unmarshal(msg, &v)
		return nil, CodeParseError, "Parse error: " + err.Error()
	}
	if msg[0] != '{' && msg[0] != '[' {
		return nil, CodeInvalidRequest, "Invalid Request: a JSON-RPC message is an object (or a batch: an array of them)"
	}
	msgs := []json.RawMessage{msg}
	if msg[0] == '[' {
		if err := json.Unmarshal(msg, &msgs); err != nil || len(msgs) == 0 {
			return nil, CodeInvalidRequest, "Invalid Request: an empty batch"
		}
	}
	for _, m := range msgs {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			var head struct {
				ID any `json:"id"`
			}
			_ = json.Unmarshal(m, &head)
			return head.ID, CodeInvalidRequest, "Invalid Request: " + err.Error()
		}
	}
	if _, rpcErr := ReadTargets(msg); rpcErr != nil {
		var id any
		_ = json.Unmarshal(RequestID(msg), &id)
		return id, rpcErr.Code, rpcErr.Message
	}
	return nil, 0, ""
}

// writeError writes a JSON-RPC error response with id (nil: null) as a
// line.
func writeError(w io.Writer, id any, code int64, msg string) {
	raw, err := json.Marshal(id)
	if err != nil {
		raw = json.RawMessage("null")
	}
	w.Write(append(ErrorMessage(raw, &jsonrpc.Error{Code: code, Message: msg}), '\n'))
}

// lockedWriter serializes whole writes: the SDK writes each message in one
// Write, and so does writeError, so messages never interleave. It also
// tracks the requests read that have no response written yet.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending map[string]bool // ids of requests not answered yet
	idle    chan struct{}   // signalled when pending empties
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pending) > 0 {
		for _, m := range messages(p) {
			if r, ok := m.(*jsonrpc.Response); ok && r.ID.IsValid() {
				delete(l.pending, idKey(r.ID))
			}
		}
		if len(l.pending) == 0 {
			select {
			case l.idle <- struct{}{}:
			default:
			}
		}
	}
	return l.w.Write(p)
}

// expect records the requests of msg, a line read, as waiting for a
// response.
func (l *lockedWriter) expect(msg []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range messages(msg) {
		if r, ok := m.(*jsonrpc.Request); ok && r.ID.IsValid() {
			l.pending[idKey(r.ID)] = true
		}
	}
}

// wait returns when no request waits for a response, or after d.
func (l *lockedWriter) wait(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		l.mu.Lock()
		n := len(l.pending)
		l.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-l.idle: // maybe from an earlier lull: look again
		case <-t.C:
			return
		}
	}
}

// messages decodes a line of JSON-RPC: one message or a batch.
func messages(line []byte) []jsonrpc.Message {
	line = bytes.TrimSpace(line)
	raws := []json.RawMessage{line}
	if len(line) > 0 && line[0] == '[' {
		if json.Unmarshal(line, &raws) != nil {
			return nil
		}
	}
	var out []jsonrpc.Message
	for _, raw := range raws {
		if m, err := jsonrpc.DecodeMessage(raw); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// idKey is a request id as a map key: numbers and strings apart.
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// Close does nothing: the writer is the process's standard output.
func (l *lockedWriter) Close() error { return nil }
