package actions_test

import (
	"context"
	"fmt"
	"strings"

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
	// input of action "text.shout": loud: is not allowed; marks: maximum: got 9, want 5; text: is required
}
