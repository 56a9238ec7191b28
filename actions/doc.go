// Package actions is the Go extension API of flowserve: the actions that a
// flow's `step` nodes call.
//
// An action is a [Spec]: a namespaced name ("http.request"), a one-line
// summary, JSON Schemas (draft 2020-12) for its input object and its output,
// and a [Func]. The schemas are the single source for lint (the `with` map
// and expressions over the result are type-checked against them), for
// `flowserve actions`, and for validation when the step runs.
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
// the default one and add fakes. A Registry is safe for concurrent use and
// its lookups take no lock.
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
// the step, for services that deduplicate. The server puts a [Host] (the fs
// root, the HTTP client, the logger) there; [HostFrom] never returns nil.
//
// Steps are at-least-once: a step may run again when a client retries with
// an older requestState, so actions with effects should be idempotent or use
// the idempotency key.
package actions
