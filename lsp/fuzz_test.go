package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/actions"
	"github.com/flowserve/flowserve/dsl"
)

// FuzzMessages hands the server arbitrary message bodies after an
// initialize and a didOpen: it answers or drops each, and no handler
// panics (the dispatcher would recover, and log it: the log must stay
// free of panics).
func FuzzMessages(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":2,"method":"textDocument/completion","params":{"textDocument":{"uri":"file:///f.yaml"},"position":{"line":3,"character":9}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///f.yaml"},"position":{"line":-1,"character":99}}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///f.yaml","version":2},"contentChanges":[{"range":{"start":{"line":9,"character":0},"end":{"line":0,"character":0}},"text":"x"}]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"textDocument/rename","params":{"textDocument":{"uri":"file:///f.yaml"},"position":{"line":3,"character":9},"newName":"b"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///f.yaml"},"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"context":{"diagnostics":[]}}}`,
		`{"jsonrpc":"2.0","id":"s","method":"nope","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":6,"method":"textDocument/definition","params":null}`,
		`{"jsonrpc":"1.0"}`, `[]`, `{`, ``,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	open := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///f.yaml","version":1,"text":"nodes:\n  - id: a\n    ask: \"{{ input. }}\"\n    next: a\n"}}}`
	f.Fuzz(func(t *testing.T, body []byte) {
		var logged bytes.Buffer
		s := New(Options{Debounce: time.Hour, Log: log.New(&logged, "", 0)}) // no lint run starts
		s.out = &writer{w: io.Discard}
		s.handle([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		s.handle([]byte(open))
		s.handle(body)
		s.closeAll()
		if strings.Contains(logged.String(), "panicked") {
			t.Fatal(logged.String())
		}
	})
}

// FuzzEditor runs every feature on arbitrary text at an arbitrary
// position, calling them directly (no recover): none may panic, and
// every range they give lies within the text.
func FuzzEditor(f *testing.F) {
	f.Add(completeFlow, 29, 25)
	f.Add(navFlow, 15, 14)
	f.Add("nodes:\n  - id: a\n    step: fs.\n    with:\n      \n", 3, 6)
	f.Add("a: \"{{ x.\u2028y }}\"\r\n- next: \xff", 0, 9)
	f.Fuzz(func(t *testing.T, src string, line, char int) {
		s := newSnapshot("/f/f.yaml", []byte(src), nil, actions.Default())
		pos := Position{Line: line % 64, Character: char % 256}
		var ranges []Range
		for _, it := range complete(s, pos) {
			if it.TextEdit != nil {
				ranges = append(ranges, it.TextEdit.Range)
			}
		}
		if h := hoverAt(s, pos); h != nil && h.Range != nil {
			ranges = append(ranges, *h.Range)
		}
		if edits, err := renameEdits(s, pos, "renamed"); err == nil {
			for _, e := range edits {
				ranges = append(ranges, e.Range)
			}
		}
		_, diags := dsl.Parse("/f/f.yaml", []byte(src))
		for _, p := range toProtocol(diags, s.text) {
			ranges = append(ranges, p.diag.Range)
		}
		end := s.text.position(len(src))
		for _, r := range ranges {
			if before(r.End, r.Start) || before(end, r.End) {
				t.Fatalf("range %+v outside the text (end %+v)", r, end)
			}
		}
	})
}

// TestReadFrame reads framed messages and refuses broken frames.
func TestReadFrame(t *testing.T) {
	tests := []struct {
		name, in string
		body     string
		err      bool
	}{
		{"one message", "Content-Length: 2\r\n\r\n{}", "{}", false},
		{"a content type", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n[]", "[]", false},
		{"lower-case, LF only", "content-length: 1\n\nx", "x", false},
		{"no length", "Content-Type: x\r\n\r\n{}", "", true},
		{"a bad length", "Content-Length: -1\r\n\r\n", "", true},
		{"a huge length", "Content-Length: 999999999999\r\n\r\n", "", true},
		{"a header without a colon", "Nonsense\r\n\r\n", "", true},
		{"a short body", "Content-Length: 9\r\n\r\n{}", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := readFrame(bufio.NewReader(bytes.NewBufferString(tt.in)))
			if (err != nil) != tt.err || string(body) != tt.body {
				t.Fatalf("readFrame = %q, %v", body, err)
			}
		})
	}
	if _, err := readFrame(bufio.NewReader(bytes.NewReader(nil))); err != io.EOF {
		t.Fatalf("readFrame at the end = %v, want io.EOF", err)
	}
}

// TestBeforeInitialize refuses requests until initialize, and answers
// unknown methods with MethodNotFound.
func TestBeforeInitialize(t *testing.T) {
	var out bytes.Buffer
	s := New(Options{})
	s.out = &writer{w: &out}
	s.handle([]byte(`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}`))
	s.handle([]byte(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}`))
	s.handle([]byte(`{"jsonrpc":"2.0","id":3,"method":"workspace/symbol","params":{}}`))
	s.handle([]byte(`{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///none.yaml"}}}`))
	var codes []int
	br := bufio.NewReader(&out)
	for {
		body, err := readFrame(br)
		if err != nil {
			break
		}
		var m struct {
			Error *struct{ Code int }
		}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		code := 0
		if m.Error != nil {
			code = m.Error.Code
		}
		codes = append(codes, code)
	}
	want := []int{codeServerNotInitialized, 0, -32601, codeRequestFailed}
	if len(codes) != len(want) {
		t.Fatalf("codes %v, want %v", codes, want)
	}
	for i := range want {
		if codes[i] != want[i] {
			t.Fatalf("codes %v, want %v", codes, want)
		}
	}
}
