package flow

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestRunScripts runs the multi-round scripts in testdata/run. Each
// archive holds flow.yaml (and optionally flow2.yaml, switched to by
// `edit`), a script and the transcript it must produce. Script commands:
//
//	args JSON             tool arguments for the following calls
//	client form url ...   capabilities (form, url, sampling, roots; "none" for none)
//	principal NAME        the caller
//	answer ID JSON        an inputResponses entry for the next call
//	call                  run one round with the current state
//	fresh                 forget the state (next call starts a run)
//	tamper                flip a byte of the current state
//	later DURATION        move the clock
//	edit                  recompile from flow2.yaml (same codec), and each
//	                      other NAME.yaml from NAME2.yaml when there is one
//
// Other NAME.yaml sections are flows that flow.yaml (or each other) call:
// they are compiled and linked together, as project.Load does.
//
//	counts                print how often the test actions ran
func TestRunScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/run/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scripts in testdata/run")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]string{}
			for _, f := range ar.Files {
				sections[f.Name] = string(f.Data)
			}
			got := runScript(t, sections)
			if *update {
				for i := range ar.Files {
					if ar.Files[i].Name == "want" {
						ar.Files[i].Data = []byte(got)
					}
				}
				if sections["want"] == "" && !hasSection(ar, "want") {
					ar.Files = append(ar.Files, txtar.File{Name: "want", Data: []byte(got)})
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := sections["want"]; got != want {
				t.Errorf("transcript differs (run with -update to accept)\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

func hasSection(ar *txtar.Archive, name string) bool {
	for _, f := range ar.Files {
		if f.Name == name {
			return true
		}
	}
	return false
}

func runScript(t *testing.T, sections map[string]string) string {
	t.Helper()
	clk := &clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	cnt := &counters{}
	opts := testOptions{Actions: testRegistry(t, cnt), Codec: testCodec(t, clk), Now: clk.now}
	// With other flow files beside flow.yaml (callees), they are compiled
	// and linked together, on an engine that knows every version compiled.
	set := len(flowSections(sections, false)) > 1
	versions := &memVersions{}
	load := func(edited bool) *testProgram {
		if !set {
			src := sections["flow.yaml"]
			if edited {
				src = sections["flow2.yaml"]
			}
			return compile(t, "flow.yaml", src, opts)
		}
		progs := compileSet(t, flowSections(sections, edited), opts)
		for _, p := range progs {
			versions.add(p)
		}
		e, err := NewEngine(EngineOptions{Codec: opts.Codec, Now: opts.Now, Replies: opts.Replies, Limits: opts.Limits, Values: opts.Values, Versions: versions})
		if err != nil {
			t.Fatal(err)
		}
		return &testProgram{Program: progs["flow.yaml"], e: e}
	}
	prog := load(false)
	req := &Request{Client: Client{Name: "test", Version: "1", Protocol: "2026-07-28", Form: true, URL: true, Sampling: true, Roots: true}}
	var out strings.Builder
	for lineNo, line := range strings.Split(sections["script"], "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmd, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		fail := func(format string, args ...any) {
			t.Fatalf("script line %d: %s: %s", lineNo+1, line, fmt.Sprintf(format, args...))
		}
		switch cmd {
		case "args":
			req.Arguments = json.RawMessage(rest)
		case "client":
			req.Client.Form, req.Client.URL, req.Client.Sampling, req.Client.Roots = false, false, false, false
			for _, c := range strings.Fields(rest) {
				switch c {
				case "form":
					req.Client.Form = true
				case "url":
					req.Client.URL = true
				case "sampling":
					req.Client.Sampling = true
				case "roots":
					req.Client.Roots = true
				case "none":
				default:
					fail("unknown capability %q", c)
				}
			}
		case "principal":
			req.Principal = rest
		case "answer":
			id, raw, ok := strings.Cut(rest, " ")
			if !ok {
				fail("want: answer ID JSON")
			}
			if req.Responses == nil {
				req.Responses = map[string]json.RawMessage{}
			}
			req.Responses[id] = json.RawMessage(raw)
		case "call":
			fmt.Fprintf(&out, "> call\n")
			res, err := prog.Run(context.Background(), req)
			req.Responses = nil
			if err != nil {
				fmt.Fprintf(&out, "error: %v\n", err)
				if IsInvalidParams(err) {
					fmt.Fprintf(&out, "  (invalid params)\n")
				}
				continue
			}
			writeResult(&out, res)
			if res.Input != nil {
				req.State = res.Input.State
			} else {
				req.State = ""
			}
		case "fresh":
			req.State = ""
		case "tamper":
			b := []byte(req.State)
			i := len(b) - 5
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			req.State = string(b)
		case "later":
			d, err := time.ParseDuration(rest)
			if err != nil {
				fail("%v", err)
			}
			clk.add(d)
		case "edit":
			prog = load(true)
		case "counts":
			cnt.mu.Lock()
			keys := make([]string, 0, len(cnt.n))
			for k := range cnt.n {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			fmt.Fprintf(&out, "> counts\n")
			for _, k := range keys {
				fmt.Fprintf(&out, "%s=%d\n", k, cnt.n[k])
			}
			cnt.mu.Unlock()
		default:
			fail("unknown command")
		}
	}
	return out.String()
}

// writeResult prints a result in the transcript's stable form.
func writeResult(out *strings.Builder, res *Result) {
	fmt.Fprintf(out, "round %d: %s\n", res.Round, strings.Join(res.Trace, " "))
	if res.Input != nil {
		ids := make([]string, 0, len(res.Input.Requests))
		for id := range res.Input.Requests {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			q := res.Input.Requests[id]
			fmt.Fprintf(out, "ask %s (%s): %q\n", id, q.Mode, q.Message)
			if q.URL != "" {
				fmt.Fprintf(out, "  url: %s\n", q.URL)
			}
			if q.Params != nil {
				b, _ := json.Marshal(q.Params)
				fmt.Fprintf(out, "  params: %s\n", b)
			}
			if q.Schema != nil {
				b, _ := json.Marshal(q.Schema)
				fmt.Fprintf(out, "  schema: %s\n", b)
			}
		}
		return
	}
	c := res.Complete
	b := contentJSON(c.Content)
	fmt.Fprintf(out, "complete (isError=%v): %s\n", c.IsError, b)
	if c.Structured != nil {
		b, _ := json.Marshal(c.Structured)
		fmt.Fprintf(out, "  structured: %s\n", b)
	}
}
