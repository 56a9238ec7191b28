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
// error. In CEL, selecting it is a run-time error naming it
// ("confirm.content has no field 'note' ..."); test it with
// has(a.content.note), or read it with a.content.?note.orValue("none").
// In expr it is nil: test it with a.content.note != nil, or read it with
// a.content.note ?? "none" (and a?.b selects from a nil a).
//
// # Errors
//
// Compile reports syntax and type errors as Errors with rune offsets into
// the source; Eval reports failures as *EvalError, with the offset of the
// part that failed when it is known. Both languages word them alike, in a
// flow's terms: types are named as a flow's author knows them ("an
// integer", "a number", "a string", "a boolean", "a list of strings", "a
// map", "an object", "any value"), each operand is shown with its source,
// and a hint says what would work:
//
//	cannot compare an integer (input.n) with a string ("3"): convert one side, like string(input.n) or int("3")
//	cannot add a string ("n=") and an integer (input.n): to join them as text, convert the other side, like string(input.n)
//	cannot call size() with an integer (input.n): it takes a string, a list, a map or a bytes value
//	undefined field 'procede' (did you mean "proceed"?)
//	index 5 is out of range: input.tags has 2 items
//
// An unknown variable, function or field gets a did-you-mean when a close
// name exists. A condition (wantBool) must have type bool (or dyn, then
// checked at run time).
//
// The wording is made from what each library knows of the failure, not
// from its messages: cel-go's checked syntax tree (the type of every
// sub-expression, from checking a rejected expression again) and its
// evaluation state (the value of every sub-expression, from evaluating a
// failed expression again with state tracking; evaluations are
// deterministic); expr's checked syntax tree (every node's nature) and the
// values of a failed node's operands (evaluated again on their own). An
// error a library describes only in text keeps the library's message:
// syntax errors, a bad regular expression (expr's matches), a failure
// inside a function whose arguments had the right types (CEL's division by
// zero or integer overflow), a value expr's len() or another function that
// checks its own arguments rejects, and in expr an operand that cannot be
// evaluated on its own (one that uses a predicate's #). Two of expr's
// messages are read, as it reports these only in text: "memory budget
// exceeded", worded as the operation limit, and a syntax error at the end
// of input, placed at the end as CEL places it.
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
