// Package actions is the Go extension API of flowserve: the actions that a
// flow's `step` nodes call.
//
// An action is a [Spec]: a namespaced name ("http.request"), a one-line
// summary, JSON Schemas (draft 2020-12) for its input object and its output,
// and a [Func]. The schemas are the single source for lint (the `with` map
// and expressions over the result are type-checked against them), for
// `flowserve actions`, and for validation when the step runs. They compile
// and validate through package schemas, so a value that fails one reads
// the same as a failing tool input or form answer (see [Violation]).
//
// # Typed actions
//
// Most actions are written as typed Go functions, and [Typed] derives the
// Spec: the schemas come from the input and output types (with
// jsonschema-go; struct tags give descriptions, options such as
// [InputProperty] add what tags cannot say), the input is decoded into the
// input type before the function runs and the output encoded after it.
//
//	type shoutIn struct {
//		Text string `json:"text" jsonschema:"The text to shout."`
//	}
//	type shoutOut struct {
//		Text string `json:"text" jsonschema:"The shouted text."`
//	}
//
//	actions.Register(actions.Typed("text.shout", "Upper-cases a text.",
//		func(ctx context.Context, in shoutIn) (shoutOut, error) {
//			return shoutOut{Text: strings.ToUpper(in.Text)}, nil
//		}))
//
// A Spec written by hand, with map[string]any schemas ([ObjectSchema],
// [PropSchema]) and a Func reading its input map ([ArgString], [ArgInt]),
// keeps working.
//
// # Configuration and resources
//
// Actions that share configuration or resources (a client, a store) are
// [Method]s of a [Module]: a value the Registry makes once per server. The
// extension's registration function takes its typed configuration and
// captures it in the module's constructor; [Registry.Provision], which a
// server calls when it starts, makes the value and runs its Provision
// (with the server's [Host]) and Validate; [Registry.Cleanup], when it
// stops, runs its Cleanup. Provision returns a new registry and leaves the
// original alone, so one registry can serve several servers.
//
// # Values
//
// Values crossing the API are JSON-like Go values: nil, bool, int64, float64,
// string, []any and map[string]any. Integers are int64 and other numbers
// float64. Validation accepts every Go numeric type and compares numbers by
// value, so an integral float64 (3.0) satisfies "type": "integer" as JSON
// Schema says, and 3 equals 3.0 in enum and const. An action may return other
// Go values (structs, []string, int); [Action.Run] and [Normalize] convert
// them.
//
// # Registries
//
// Built-ins (package actions/std) and extension packages call [Register]
// from init to fill the [Default] registry; a bad or duplicate spec panics
// at startup. Tests build their own with [NewRegistry], or [Registry.Clone]
// the default one and add fakes; std.Register adds the built-ins to any
// registry. A Registry is safe for concurrent use and its lookups take no
// lock.
//
// A custom build is a main package that blank-imports the extension package
// next to the standard actions and calls the CLI's Main:
//
//	import (
//		_ "example.com/acme/flowactions" // calls actions.Register in init
//	)
//
// # Context
//
// The engine puts a [Call] (run id, node id, position) in the context of
// every step; [Call.IdempotencyKey] is stable across retries and replays of
// the step, for services that deduplicate. A server that does not provision
// its registry puts its [Host] (the fs root, the HTTP client, the logger) in
// the context instead, and [HostFrom] reads it (never nil); module values
// should prefer the Host given to Provision, and reading the context's is
// deprecated.
//
// Steps are at-least-once: a step may run again when a client retries with
// an older requestState, so actions with effects should be idempotent or use
// the idempotency key.
package actions
