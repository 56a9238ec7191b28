// Package lang compiles, type-checks and evaluates the expressions of flow
// files.
//
// A flow names its expression language once (`expressions: cel`, the
// default, or `expressions: expr`); everything else in flowserve goes
// through the Language interface, so no other package branches on the
// language. Both languages see the same variables with the same types and
// produce the same JSON-like Go values.
//
// # Types
//
// Each variable is declared with a JSON Schema ([Var]), mapped to a type
// the checker enforces:
//
//	JSON Schema                                   type
//	{type: string} (any format, enum or oneOf)    string
//	{type: integer}                               int
//	{type: number}                                double
//	{type: boolean}                               bool
//	{type: array, items: S}                       list(S); list(dyn) without items
//	{type: object, properties: {...}}             object: its fields are the properties,
//	                                              and any other field is a compile error
//	{type: object, additionalProperties: S}       map(string, S)
//	{type: object} without properties             map(string, dyn)
//	["T", "null"]                                 T (the value may be null)
//	enum, const, oneOf/anyOf of one type           that type
//	no type, mixed anyOf/oneOf, $ref, ...         dyn (checked at run time only)
//
// An object whose schema has properties is an object even if it also has
// additionalProperties. In CEL, an object is a declared object type
// (object(confirm.content) in messages); it supports field selection,
// has() and optional selection (.?), but not map functions: convert with
// dyn(...) to treat it as a map (size(dyn(x)), dyn(x).all(...)). An
// object with a field CEL cannot select with a dot ("first-name", a
// reserved word) is a map of its fields' common type in CEL instead,
// indexed with ['first-name']. In expr, an object is a strict map.
//
// At run time values stay JSON-like: objects and maps are map[string]any,
// lists []any, ints int64, doubles float64. CEL selects object fields
// from the map like keys (as Kubernetes does for CRD validation rules).
//
// # Numbers
//
// Comparisons work across ints and doubles in both languages
// (`input.amount > 1000` for a number field). Arithmetic follows each
// language: CEL never mixes ints and doubles (`input.count * input.price`
// is a compile error saying to convert one side with double(...) or
// int(...)), while expr promotes the int to a double, and expr's `/`
// always divides as doubles (`10 / 4` is 2.5; CEL gives 2).
//
// # Optional fields
//
// A declared field that is absent at run time (an optional property, or
// any content field of an ask that was not accepted) is not a compile
// error. In CEL, selecting it is a run-time error naming it ("no such key:
// note"); test it with has(a.content.note), or read it with
// a.content.?note.orValue("none"). In expr it is nil: test it with
// a.content.note != nil, or read it with a.content.note ?? "none" (and
// a?.b selects from a nil a).
//
// # Errors
//
// Compile reports syntax and type errors with rune offsets into the
// source. An unknown variable or field gets a did-you-mean when a close
// name exists (`undefined field 'procede' (did you mean "proceed"?)`);
// for fields it is given when the field is selected from a chain of names
// that starts at a variable. A condition (wantBool) must have type bool
// (or dyn, then checked at run time).
//
// # Limits and purity
//
// CEL evaluations are bounded by a cost limit (Options.CostLimit, in
// cel-go's cost units). expr has no CPU cost model; its memory budget is
// used as the operation limit instead: Options.CostLimit bounds the
// elements an evaluation's loops and ranges visit plus the values it
// allocates (expr's own default is the same 1 000 000), and an
// expression's syntax tree may have at most ExprMaxNodes nodes. Both
// languages are deterministic: expr's now() is disabled and its dates
// without a zone are UTC; CEL has no clock.
package lang
