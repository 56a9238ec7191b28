package std

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/flowserve/flowserve/actions"
)

// Options configure the built-ins that [Register] adds. The zero value
// (and nil) leaves everything to the server's [actions.Host].
type Options struct {
	// FSRoot, when not empty, is the directory the fs.* actions are
	// confined to, whatever the Host's FSRoot says.
	FSRoot string
}

// Register adds the built-in actions to reg, all on one [actions.Module]
// named "std". It fails, registering nothing, if reg already has an
// action of one of their names.
//
// The actions use what the server lends them: on a registry that
// [actions.Registry.Provision] returned, the Host given to Provision (a
// context's Host is then ignored); on one never provisioned, the Host in
// each call's context ([actions.HostFrom]), the deprecated way servers
// have lent it so far. Provisioning fails if the fs root (opts.FSRoot, or
// else the Host's) is set but is not a directory.
//
// Importing the package registers them in [actions.Default] with nil
// Options.
func Register(reg *actions.Registry, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	conf := *opts
	m := actions.NewModule("std", func() *builtins { return &builtins{conf: conf} })
	var specs []actions.Spec
	specs = append(specs, fsSpecs(m)...)
	specs = append(specs, httpSpecs(m)...)
	specs = append(specs, logSpecs(m)...)
	specs = append(specs, miscSpecs(m)...)
	specs = append(specs, serverSpecs(m)...)
	for _, s := range specs {
		if _, dup := reg.Lookup(s.Name); dup {
			return fmt.Errorf("std: register action %q: already registered", s.Name)
		}
	}
	for _, s := range specs {
		if err := reg.Register(s); err != nil {
			return fmt.Errorf("std: %w", err)
		}
	}
	return nil
}

func init() {
	if err := Register(actions.Default(), nil); err != nil {
		panic(err)
	}
}

// builtins is the value the built-ins share: the configuration Register
// was given and the Host they were provisioned with.
type builtins struct {
	conf Options
	host *actions.Host // nil until provisioned
}

var _ actions.Provisioner = (*builtins)(nil)

// Provision keeps the server's Host (its fields are read when an action
// runs: the server sets Reload after provisioning) and checks the fs root.
func (b *builtins) Provision(_ context.Context, h *actions.Host) error {
	b.host = h
	if root := b.fsRoot(context.Background()); root != "" {
		if info, err := os.Stat(root); err != nil || !info.IsDir() {
			return fmt.Errorf("the fs root %s is not a directory", root)
		}
	}
	return nil
}

// hostOf returns the provisioned Host or, on an unprovisioned registry,
// the one in ctx.
func (b *builtins) hostOf(ctx context.Context) *actions.Host {
	if b.host != nil {
		return b.host
	}
	return actions.HostFrom(ctx)
}

// fsRoot returns the directory fs actions are confined to; "" for none.
func (b *builtins) fsRoot(ctx context.Context) string {
	if b.conf.FSRoot != "" {
		return b.conf.FSRoot
	}
	return b.hostOf(ctx).FSRoot
}

// Schema edits for the derived schemas.

// prop sets a property's description and further edits.
func prop(desc string, edits ...func(*jsonschema.Schema)) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) {
		p.Description = desc
		for _, e := range edits {
			e(p)
		}
	}
}

func minLength(n int) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) { p.MinLength = jsonschema.Ptr(n) }
}

// byDefault sets a property's default value.
func byDefault(v any) func(*jsonschema.Schema) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a constant of this package
	}
	return func(p *jsonschema.Schema) { p.Default = b }
}

func format(f string) func(*jsonschema.Schema) {
	return func(p *jsonschema.Schema) { p.Format = f }
}

// array makes a slice's schema an array, not "array or null": the action
// never returns a nil slice.
func array(p *jsonschema.Schema) { p.Type, p.Types = "array", nil }

// anyJSON makes a property any JSON value (a json.RawMessage field).
func anyJSON(p *jsonschema.Schema) { *p = jsonschema.Schema{Description: p.Description} }
