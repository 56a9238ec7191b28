package std

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/actions"
)

func names(reg *actions.Registry) string {
	var out []string
	for _, a := range reg.Actions() {
		out = append(out, a.Name)
	}
	return strings.Join(out, " ")
}

func TestRegister(t *testing.T) {
	all := names(actions.Default())
	tests := []struct {
		name    string
		reg     func(t *testing.T) *actions.Registry
		wantErr string
		want    string // the registry's actions afterwards
	}{
		{"fresh registry", func(*testing.T) *actions.Registry { return actions.NewRegistry() }, "", all},
		{"zero registry", func(*testing.T) *actions.Registry { return &actions.Registry{} }, "", all},
		{"next to other actions", func(t *testing.T) *actions.Registry {
			reg := actions.NewRegistry()
			if err := reg.Register(actions.Typed("acme.ping", "Pings.", func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil })); err != nil {
				t.Fatal(err)
			}
			return reg
		}, "", "acme.ping " + all},
		{"twice: nothing is registered the second time", func(t *testing.T) *actions.Registry {
			reg := actions.NewRegistry()
			if err := Register(reg, nil); err != nil {
				t.Fatal(err)
			}
			return reg
		}, `std: register action "fs.stat": already registered`, all},
		{"one name taken: nothing is registered", func(t *testing.T) *actions.Registry {
			reg := actions.NewRegistry()
			err := reg.Register(actions.Typed("time.now", "Mine.", func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil }))
			if err != nil {
				t.Fatal(err)
			}
			return reg
		}, `std: register action "time.now": already registered`, "time.now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := tt.reg(t)
			err := Register(reg, nil)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Fatalf("Register error = %v, want %q", err, tt.wantErr)
			}
			if got := names(reg); got != tt.want {
				t.Errorf("registry holds\n  %s\nwant\n  %s", got, tt.want)
			}
		})
	}
}

// runOn runs name on reg with ctxHost (if any) in the context.
func runOn(t *testing.T, reg *actions.Registry, ctxHost *actions.Host, name string, in map[string]any) (map[string]any, error) {
	t.Helper()
	a, ok := reg.Lookup(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	ctx := context.Background()
	if ctxHost != nil {
		ctx = actions.WithHost(ctx, ctxHost)
	}
	out, err := a.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

func dirWith(t *testing.T, file, text string) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644))
	return dir
}

// TestProvisionedHost: on a provisioned registry the built-ins use the Host
// and Options they were provisioned with, not the context's; unprovisioned,
// the context's (the deprecated path).
func TestProvisionedHost(t *testing.T) {
	served := dirWith(t, "a.txt", "served")
	configured := dirWith(t, "a.txt", "configured")
	inCtx := dirWith(t, "a.txt", "context")
	ctxHost := &actions.Host{FSRoot: inCtx}
	read := map[string]any{"path": "a.txt"}

	tests := []struct {
		name     string
		opts     *Options
		host     *actions.Host // given to Provision; nil: not provisioned
		ctxHost  *actions.Host
		want     string
		wantErr  error
		provFail string
	}{
		{name: "unprovisioned reads the context", ctxHost: ctxHost, want: "context"},
		{name: "unprovisioned without a context host", wantErr: ErrNoRoot},
		{name: "provisioned ignores the context", host: &actions.Host{FSRoot: served}, ctxHost: ctxHost, want: "served"},
		{name: "provisioned without a root", host: &actions.Host{}, ctxHost: ctxHost, wantErr: ErrNoRoot},
		{name: "options win over the host", opts: &Options{FSRoot: configured}, host: &actions.Host{FSRoot: served}, want: "configured"},
		{name: "options without provisioning", opts: &Options{FSRoot: configured}, ctxHost: ctxHost, want: "configured"},
		{name: "a root that is not a directory fails provisioning", host: &actions.Host{FSRoot: filepath.Join(served, "a.txt")},
			provFail: `provision module "std": the fs root ` + filepath.Join(served, "a.txt") + ` is not a directory`},
		{name: "a missing root fails provisioning", opts: &Options{FSRoot: filepath.Join(served, "nope")}, host: &actions.Host{},
			provFail: `provision module "std": the fs root ` + filepath.Join(served, "nope") + ` is not a directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := actions.NewRegistry()
			must(t, Register(reg, tt.opts))
			if tt.host != nil {
				p, err := reg.Provision(context.Background(), tt.host)
				if tt.provFail != "" {
					if err == nil || err.Error() != tt.provFail {
						t.Fatalf("Provision error = %v, want %q", err, tt.provFail)
					}
					return
				}
				must(t, err)
				defer p.Cleanup()
				reg = p
			}
			out, err := runOn(t, reg, tt.ctxHost, "fs.read", read)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			must(t, err)
			if out["text"] != tt.want {
				t.Errorf("fs.read gave %q, want %q", out["text"], tt.want)
			}
		})
	}
}

// TestProvisionedHostIsReadPerCall: the server fills Host.Reload after
// provisioning; server.reload and log.* see the Host as it is when they run.
func TestProvisionedHostIsReadPerCall(t *testing.T) {
	reg := actions.NewRegistry()
	must(t, Register(reg, nil))
	host := &actions.Host{}
	p, err := reg.Provision(context.Background(), host)
	must(t, err)
	defer p.Cleanup()

	_, err = runOn(t, p, nil, "server.reload", map[string]any{})
	wantErr(t, err, "server.reload needs a server that can reload its flows")

	host.Reload = func(context.Context) ([]string, error) { return nil, nil }
	out, err := runOn(t, p, nil, "server.reload", map[string]any{})
	must(t, err)
	if tools, ok := out["tools"].([]any); !ok || len(tools) != 0 {
		t.Errorf("tools = %#v, want an empty list", out["tools"])
	}

	var buf bytes.Buffer
	host.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	_, err = runOn(t, p, &actions.Host{Logger: slog.New(slog.DiscardHandler)}, "log.warn", map[string]any{"message": "to the provisioned logger"})
	must(t, err)
	if !strings.Contains(buf.String(), "to the provisioned logger") {
		t.Errorf("the provisioned logger got %q", buf.String())
	}
}
