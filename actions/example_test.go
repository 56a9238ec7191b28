package actions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/flowserve/flowserve/actions"
)

// A custom action: a package of actions calls actions.Register from init;
// here it goes into a registry of its own.
func ExampleRegistry_Register() {
	reg := actions.NewRegistry()
	err := reg.Register(actions.Spec{
		Name:    "text.shout",
		Summary: "Upper-cases a text and adds exclamation marks.",
		Input: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"text":  map[string]any{"type": "string", "description": "The text to shout."},
				"marks": map[string]any{"type": "integer", "minimum": 0, "maximum": 5, "default": 1, "description": "How many exclamation marks to add."},
			},
			"required":             []string{"text"},
			"additionalProperties": false,
		},
		Output: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"text": map[string]any{"type": "string", "description": "The shouted text."},
			},
			"required": []string{"text"},
		},
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			text := in["text"].(string)
			marks := in["marks"].(int64) // Run applied the default
			return map[string]any{"text": strings.ToUpper(text) + strings.Repeat("!", int(marks))}, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	shout, _ := reg.Lookup("text.shout")
	out, err := shout.Run(context.Background(), map[string]any{"text": "hello", "marks": int64(3)})
	fmt.Println(out, err)

	out, err = shout.Run(context.Background(), map[string]any{"text": "hi"})
	fmt.Println(out, err)

	_, err = shout.Run(context.Background(), map[string]any{"marks": int64(9), "loud": true})
	fmt.Println(err)
	// Output:
	// map[text:HELLO!!!] <nil>
	// map[text:HI!] <nil>
	// input of action "text.shout": loud: is not allowed; marks: must be at most 5; text: is required
}

type shoutIn struct {
	Text  string `json:"text" jsonschema:"The text to shout."`
	Marks int    `json:"marks,omitempty" jsonschema:"How many exclamation marks to add."`
}

type shoutOut struct {
	Text string `json:"text" jsonschema:"The shouted text."`
}

// A typed action: the schemas come from the Go types, the input arrives
// decoded, and options add the keywords struct tags cannot say.
func ExampleTyped() {
	reg := actions.NewRegistry()
	err := reg.Register(actions.Typed("text.shout", "Upper-cases a text and adds exclamation marks.",
		func(ctx context.Context, in shoutIn) (shoutOut, error) {
			return shoutOut{Text: strings.ToUpper(in.Text) + strings.Repeat("!", in.Marks)}, nil
		},
		actions.InputProperty("marks", func(p *jsonschema.Schema) {
			p.Default = json.RawMessage("1")
			p.Minimum, p.Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(5.0)
		}),
	))
	if err != nil {
		fmt.Println(err)
		return
	}
	shout, _ := reg.Lookup("text.shout")
	b, _ := json.Marshal(shout.Input)
	fmt.Println(string(b))

	out, err := shout.Run(context.Background(), map[string]any{"text": "hi"})
	fmt.Println(out, err)
	_, err = shout.Run(context.Background(), map[string]any{"text": "hi", "marks": int64(9)})
	fmt.Println(err)
	// Output:
	// {"additionalProperties":false,"properties":{"marks":{"default":1,"description":"How many exclamation marks to add.","maximum":5,"minimum":0,"type":"integer"},"text":{"description":"The text to shout.","type":"string"}},"required":["text"],"type":"object"}
	// map[text:HI!] <nil>
	// input of action "text.shout": marks: must be at most 5
}

// Greeter is a module value: the configuration it was registered with,
// and what Provision gives it.
type Greeter struct {
	greeting string       // configuration
	log      *slog.Logger // from the server's Host
}

func (g *Greeter) Provision(ctx context.Context, h *actions.Host) error {
	g.log = h.Log()
	fmt.Println("provision: greeting", g.greeting)
	return nil
}

func (g *Greeter) Cleanup() error {
	fmt.Println("cleanup")
	return nil
}

type greetIn struct {
	Name string `json:"name" jsonschema:"Whom to greet."`
}

type greetOut struct {
	Text string `json:"text" jsonschema:"The greeting."`
}

func (g *Greeter) Greet(ctx context.Context, in greetIn) (greetOut, error) {
	g.log.DebugContext(ctx, "greeting", "name", in.Name)
	return greetOut{Text: g.greeting + ", " + in.Name}, nil
}

// RegisterGreeter is how an extension package takes its configuration:
// the module's constructor captures it.
func RegisterGreeter(reg *actions.Registry, greeting string) error {
	m := actions.NewModule("greeter", func() *Greeter { return &Greeter{greeting: greeting} })
	return reg.Register(actions.Method(m, "greeter.greet", "Greets someone.", (*Greeter).Greet))
}

// Actions with configuration and a lifecycle: a server provisions its
// registry when it starts and cleans it up when it stops.
func ExampleMethod() {
	reg := actions.NewRegistry()
	if err := RegisterGreeter(reg, "Bonjour"); err != nil {
		fmt.Println(err)
		return
	}
	served, err := reg.Provision(context.Background(), &actions.Host{})
	if err != nil {
		fmt.Println(err)
		return
	}
	greet, _ := served.Lookup("greeter.greet")
	out, err := greet.Run(context.Background(), map[string]any{"name": "Ada"})
	fmt.Println(out, err)
	fmt.Println(served.Cleanup())
	// Output:
	// provision: greeting Bonjour
	// map[text:Bonjour, Ada] <nil>
	// cleanup
	// <nil>
}
