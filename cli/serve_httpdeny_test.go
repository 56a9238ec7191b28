package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flowserve/flowserve/project"
)

// TestServeHTTPDenyPrivate: serve's --http-deny-private reaches the
// http.request action of the registry the server provisions: a step then
// cannot reach a loopback server; without the flag it can.
func TestServeHTTPDenyPrivate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "inside")
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name string
		args []string
		want string // "": the request goes through
	}{
		{"flag set", []string{"--http-deny-private"}, "address 127.0.0.1 is private (loopback): --http-deny-private refuses private addresses"},
		{"flag set to false", []string{"--http-deny-private=false"}, ""},
		{"flag absent", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f serveFlags
			var stderr bytes.Buffer
			if err := f.flagSet(&Env{Stderr: &stderr}).Parse(tt.args); err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			ctx := context.Background()
			rt, err := f.runtime(ctx, &project.Values{}, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer rt.close()
			a, ok := rt.reg.Lookup("http.request")
			if !ok {
				t.Fatal("no http.request in the provisioned registry")
			}
			out, err := a.Run(ctx, map[string]any{"url": srv.URL + "/"})
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want one containing %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if text := out.(map[string]any)["text"]; text != "inside" {
				t.Fatalf("out = %v", out)
			}
		})
	}
}
