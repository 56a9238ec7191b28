package flow

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/flowserve/flowserve/check"
	"github.com/flowserve/flowserve/dsl"
)

// memVersions is a Resolver of every program a test compiled, so that a
// run pinned to an earlier version of a flow (or of a callee) finds it.
type memVersions struct {
	mu    sync.Mutex
	progs map[dsl.Version]*Program
}

func (m *memVersions) add(p *Program) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.progs == nil {
		m.progs = map[dsl.Version]*Program{}
	}
	if _, ok := m.progs[p.Version()]; !ok {
		m.progs[p.Version()] = p
	}
}

func (m *memVersions) Program(_ context.Context, name string, v dsl.Version) (*Program, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p := m.progs[v]; p != nil && p.Name() == name {
		return p, nil
	}
	return nil, ErrUnknownVersion
}

// compileSet parses the flows of srcs (file name → source), checks their
// calls against each other, compiles and links them as project.Load
// does, failing the test on errors, and returns the programs by file
// name.
func compileSet(t testing.TB, srcs map[string]string, opts testOptions) map[string]*Program {
	t.Helper()
	names := make([]string, 0, len(srcs))
	for name := range srcs {
		names = append(names, name)
	}
	sort.Strings(names)
	var files []*dsl.File
	for _, name := range names {
		f, diags := dsl.Parse(name, []byte(srcs[name]))
		if err := diags.Err(); err != nil {
			t.Fatalf("parse %s:\n%v", name, err)
		}
		files = append(files, f)
	}
	table := dsl.NewFlowTable(files)
	env := Env{Actions: opts.Actions, CostLimit: opts.CostLimit, Callees: table.Callees()}
	out := map[string]*Program{}
	byName := map[string]*Program{}
	var progs []*Program
	for i, f := range files {
		if err := check.Calls(f, table).Err(); err != nil {
			t.Fatalf("check calls of %s:\n%v", names[i], err)
		}
		p, diags := Compile(f, env)
		if err := diags.Err(); err != nil || p == nil {
			t.Fatalf("compile %s:\n%v", names[i], err)
		}
		out[names[i]] = p
		byName[p.Name()] = p
		progs = append(progs, p)
	}
	Link(progs, func(name string) *Program { return byName[name] })
	return out
}

// flowSections returns the sections of a script archive that are flow
// files: name.yaml, and each section named name2.yaml becomes name.yaml
// after an edit.
func flowSections(sections map[string]string, edited bool) map[string]string {
	out := map[string]string{}
	for name, src := range sections {
		if !strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, "2.yaml") {
			continue
		}
		out[name] = src
		if edited {
			if e, ok := sections[strings.TrimSuffix(name, ".yaml")+"2.yaml"]; ok {
				out[name] = e
			}
		}
	}
	return out
}
