package lang

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"cel.dev/cel-go/common/types"
)

// This file words expression errors in the flow's terms, for both
// languages: types are named as a flow author knows them ("an integer", "a
// list of strings", "a map"), each operand is shown with its source, and a
// hint says what would work. The languages' own facts (cel-go's checked
// syntax tree and evaluation state, expr's checked syntax tree) are
// gathered in cel_words.go and expr_words.go and turned into the values
// these functions take; nothing here reads another library's messages.

// typeName names a type for messages: "integer", "number", "string",
// "boolean", "list of strings", "map", "map of integers", "object",
// "optional string", "any value". CEL types are the vocabulary of both
// languages: expr's natures and run-time values are mapped onto them first.
func typeName(t *types.Type) string {
	if t == nil {
		return "any value"
	}
	switch t.Kind() {
	case types.BoolKind:
		return "boolean"
	case types.IntKind, types.UintKind:
		return "integer"
	case types.DoubleKind:
		return "number"
	case types.StringKind:
		return "string"
	case types.BytesKind:
		return "bytes value"
	case types.NullTypeKind:
		return "null"
	case types.TimestampKind:
		return "timestamp"
	case types.DurationKind:
		return "duration"
	case types.ListKind:
		return collectionName("list", t.Parameters()[0])
	case types.MapKind:
		return collectionName("map", t.Parameters()[1])
	case types.StructKind:
		return "object"
	case types.TypeKind:
		return "type"
	case types.ErrorKind:
		return "error"
	case types.OpaqueKind:
		if isOptional(t) {
			return "optional " + typeName(t.Parameters()[0])
		}
		return t.TypeName()
	}
	return "any value"
}

func collectionName(what string, elem *types.Type) string {
	if isDynLike(elem) {
		return what
	}
	return what + " of " + pluralName(elem)
}

// pluralName names several values of a type: "strings", "lists of
// integers", "values".
func pluralName(t *types.Type) string {
	switch {
	case isDynLike(t):
		return "values"
	case t.Kind() == types.ListKind || t.Kind() == types.MapKind:
		n := typeName(t)
		if i := strings.IndexByte(n, ' '); i > 0 {
			return n[:i] + "s" + n[i:]
		}
		return n + "s"
	case t.Kind() == types.NullTypeKind:
		return "nulls"
	case isOptional(t):
		return "optional " + pluralName(t.Parameters()[0])
	}
	return typeName(t) + "s"
}

// aTypeName names a type with its article: "an integer", "a list of
// strings", "null", "any value".
func aTypeName(t *types.Type) string {
	n := typeName(t)
	switch {
	case n == "null" || n == "any value":
		return n
	case strings.IndexByte("aeiou", n[0]) >= 0:
		return "an " + n
	}
	return "a " + n
}

func isDynLike(t *types.Type) bool {
	if t == nil {
		return true
	}
	switch t.Kind() {
	case types.DynKind, types.AnyKind, types.TypeParamKind, types.ErrorKind:
		return true
	}
	return false
}

func isOptional(t *types.Type) bool {
	return t.Kind() == types.OpaqueKind && t.TypeName() == "optional_type" && len(t.Parameters()) == 1
}

func isNumber(t *types.Type) bool {
	switch t.Kind() {
	case types.IntKind, types.UintKind, types.DoubleKind:
		return true
	}
	return false
}

func isKind(t *types.Type, ks ...types.Kind) bool {
	for _, k := range ks {
		if t.Kind() == k {
			return true
		}
	}
	return false
}

// sameTypeName reports whether two types read the same in messages.
func sameTypeName(a, b *types.Type) bool { return typeName(a) == typeName(b) }

// celTypeOf returns the CEL type of a type of the shared model, for
// messages only: objects are named by where they come from.
func celTypeOf(t *typ) *types.Type {
	if s, ok := celScalar(t.kind); ok {
		return s
	}
	switch t.kind {
	case kindNull:
		return types.NullType
	case kindList:
		return types.NewListType(celTypeOf(t.elem))
	case kindMap:
		return types.NewMapType(types.StringType, celTypeOf(t.elem))
	case kindObject:
		return types.NewObjectType(t.String())
	}
	return types.DynType
}

var (
	timeGoType     = reflect.TypeOf(time.Time{})
	durationGoType = reflect.TypeOf(time.Duration(0))
)

// valueCELType returns the CEL type of a JSON-like Go value as both
// languages produce them at run time: a list or a map whose elements
// share a type is typed by it (a list of strings), otherwise by dyn.
func valueCELType(v any) *types.Type {
	switch v := v.(type) {
	case nil:
		return types.NullType
	case bool:
		return types.BoolType
	case int, int64, int32, uint, uint64:
		return types.IntType
	case float64, float32:
		return types.DoubleType
	case string:
		return types.StringType
	case time.Time:
		return types.TimestampType
	case time.Duration:
		return types.DurationType
	case []any:
		return types.NewListType(commonValueType(v))
	case map[string]any:
		vs := make([]any, 0, len(v))
		for _, e := range v {
			vs = append(vs, e)
		}
		return types.NewMapType(types.StringType, commonValueType(vs))
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Slice, reflect.Array:
		return types.NewListType(types.DynType)
	case reflect.Map:
		return types.NewMapType(types.StringType, types.DynType)
	}
	return types.DynType
}

func commonValueType(vs []any) *types.Type {
	var t *types.Type
	for _, v := range vs {
		vt := valueCELType(v)
		if t == nil {
			t = vt
		} else if !t.IsExactType(vt) {
			return types.DynType
		}
	}
	if t == nil {
		return types.DynType
	}
	return t
}

// maxQuoted is the longest operand source a message quotes.
const maxQuoted = 40

// operand is one input of an operator or function, as messages show it.
type operand struct {
	t    *types.Type
	text string // its source, or "" when it is too long to quote
}

// newOperand returns an operand of type t written as src, which it quotes
// when it is short and on one line.
func newOperand(t *types.Type, src string) operand {
	src = strings.TrimSpace(src)
	if len([]rune(src)) > maxQuoted || strings.ContainsAny(src, "\n\r") {
		src = ""
	}
	return operand{t: t, text: src}
}

// String reads "an integer (input.n)", or "an integer" when the source is
// not quoted.
func (o operand) String() string {
	if o.text == "" {
		return aTypeName(o.t)
	}
	return aTypeName(o.t) + " (" + o.text + ")"
}

// src is the operand's source for a hint, or "..." when it is not quoted.
func (o operand) src() string {
	if o.text == "" {
		return "..."
	}
	return o.text
}

// dialect is what the wording needs to know of a language: the names its
// hints use.
type dialect struct {
	conv     map[types.Kind]string // conversion functions by the kind they produce
	convFrom map[types.Kind][]types.Kind
	size     string // the function that counts a list's items
	concat   string // the function that joins lists, when + does not
	dyn      string // the function that makes an object a map, when objects are not maps
	// mixedArithmetic is set when ints and doubles mix in arithmetic.
	mixedArithmetic bool
	null            string // how the language writes null
}

var celDialect = &dialect{
	conv: map[types.Kind]string{types.IntKind: "int", types.DoubleKind: "double",
		types.StringKind: "string", types.BoolKind: "bool"},
	convFrom: map[types.Kind][]types.Kind{
		types.IntKind:    {types.DoubleKind, types.StringKind, types.UintKind, types.TimestampKind},
		types.DoubleKind: {types.IntKind, types.StringKind, types.UintKind},
		types.StringKind: {types.IntKind, types.DoubleKind, types.BoolKind, types.UintKind,
			types.BytesKind, types.TimestampKind, types.DurationKind},
		types.BoolKind: {types.StringKind},
	},
	size: "size",
	dyn:  "dyn",
	null: "null",
}

var exprDialect = &dialect{
	conv: map[types.Kind]string{types.IntKind: "int", types.DoubleKind: "float",
		types.StringKind: "string"},
	convFrom: map[types.Kind][]types.Kind{
		types.IntKind:    {types.DoubleKind, types.StringKind},
		types.DoubleKind: {types.IntKind, types.StringKind},
		types.StringKind: {types.IntKind, types.DoubleKind, types.BoolKind,
			types.TimestampKind, types.DurationKind},
	},
	size:            "len",
	concat:          "concat",
	mixedArithmetic: true,
	null:            "nil",
}

// convert returns "int(x)" when the dialect converts o to a value of
// type to, or "".
func (d *dialect) convert(o operand, to *types.Type) string {
	fn, ok := d.conv[to.Kind()]
	if !ok {
		return ""
	}
	for _, k := range d.convFrom[to.Kind()] {
		if o.t.Kind() == k {
			return fn + "(" + o.src() + ")"
		}
	}
	return ""
}

// convertHint suggests converting either side of a binary operation to
// the other's type: ": convert one side, like string(input.n) or
// int("3")", or "" when neither converts.
func (d *dialect) convertHint(a, b operand) string {
	var opts []string
	if c := d.convert(a, b.t); c != "" {
		opts = append(opts, c)
	}
	if c := d.convert(b, a.t); c != "" {
		opts = append(opts, c)
	}
	if len(opts) == 0 {
		return ""
	}
	return ": convert one side, like " + strings.Join(opts, " or ")
}

// boolHint suggests how to make a boolean of o: ": compare it, like
// input.n > 0", or "".
func (d *dialect) boolHint(o operand) string {
	if o.text == "" {
		return ""
	}
	switch {
	case isNumber(o.t):
		return ": compare it, like " + o.text + " > 0"
	case o.t.Kind() == types.StringKind:
		return `: compare it, like ` + o.text + ` != ""`
	case isKind(o.t, types.ListKind, types.MapKind):
		return ": test its size, like " + d.size + "(" + o.text + ") > 0"
	case o.t.Kind() == types.NullTypeKind:
		return d.nullHint(o, "false")
	}
	return ""
}

// nullHint explains a null operand in expr, where an absent optional
// field reads as nil.
func (d *dialect) nullHint(o operand, zero string) string {
	if d.null != "nil" || o.text == "" || o.t.Kind() != types.NullTypeKind {
		return ""
	}
	if zero == "" {
		zero = "..."
	}
	return fmt.Sprintf(": is an optional field absent? test it with %s != nil, or give a default with %s ?? %s",
		o.text, o.text, zero)
}

// zeroOf returns an expr literal of t's type to default to, or "".
func zeroOf(t *types.Type) string {
	switch {
	case t.Kind() == types.BoolKind:
		return "false"
	case isNumber(t):
		return "0"
	case t.Kind() == types.StringKind:
		return `""`
	case t.Kind() == types.ListKind:
		return "[]"
	case t.Kind() == types.MapKind:
		return "{}"
	}
	return ""
}

// celWording is an error worded from a checker's facts, in either
// language. field is set when the error is about that field, which it then
// points at (CEL places such errors on the dot). name is set when the
// error is about that text (an undefined name, field or function), which
// the Error then spans, and suggestion is the option name most likely
// misspells.
type celWording struct {
	msg        string
	field      string
	name       string
	suggestion string
}

// at returns the Error of w at rune offset off of src: at the field when
// w has one, and spanning name, with the suggestion, when src has it there
// (or just before: CEL places a call on its parenthesis).
func (w celWording) at(src string, off int) Error {
	if w.field != "" {
		off = fieldOffset(src, off, w.field)
	}
	e := Error{Offset: off, Message: w.msg}
	if w.name == "" || off < 0 {
		return e
	}
	rs := []rune(src)
	n := len([]rune(w.name))
	if w.field == "" && !spells(rs, off, w.name) && spells(rs, off-n, w.name) {
		e.Offset = off - n // CEL places a call on its parenthesis
	}
	if spells(rs, e.Offset, w.name) {
		e.Length = n
		e.Suggestion = w.suggestion
	}
	return e
}

// spells reports whether rs holds name at offset off.
func spells(rs []rune, off int, name string) bool {
	n := len([]rune(name))
	return off >= 0 && off+n <= len(rs) && string(rs[off:off+n]) == name
}

// didYouMean returns ` (did you mean "x"?)` with the option that name most
// likely misspells, and the option; "" and "" when none is close.
func didYouMean(name string, options []string) (hint, suggestion string) {
	if s := Suggest(name, options); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s), s
	}
	return "", ""
}

// unknownName words a name that is not in scope.
func unknownName(name string, options []string) celWording {
	hint, s := didYouMean(name, options)
	return celWording{msg: fmt.Sprintf("undefined name '%s'%s", name, hint), name: name, suggestion: s}
}

// unknownFunction words a call of a function the language does not have.
func unknownFunction(name string, options []string) celWording {
	hint, s := didYouMean(name, options)
	return celWording{msg: fmt.Sprintf("undefined function '%s'%s", name, hint), name: name, suggestion: s}
}

// undefinedField words a field an object does not declare.
func undefinedField(field string, fields []string) celWording {
	fs := append([]string(nil), fields...)
	sort.Strings(fs)
	hint, s := didYouMean(field, fs)
	return celWording{msg: fmt.Sprintf("undefined field '%s'%s", field, hint), field: field, name: field, suggestion: s}
}

// noFields words selecting a field of a value that has none; test is set
// for has().
func (d *dialect) noFields(o operand, field string, test bool) string {
	if test {
		return fmt.Sprintf("has() tests a field of an object or a map, not of %s", o)
	}
	msg := fmt.Sprintf("cannot select field '%s' from %s: only objects and maps have fields", field, o)
	if o.t.Kind() == types.NullTypeKind && d.null == "nil" && o.text != "" {
		msg += fmt.Sprintf("; to read it only when %s is set, write %s?.%s", o.text, o.text, field)
	}
	return msg
}

// notIterable words a macro or builtin that iterates over something that
// is neither a list nor a map.
func notIterable(fn string, o operand) string {
	return fmt.Sprintf("%s() needs a list or a map, not %s", fn, o)
}

// notPredicate words a predicate that is not boolean.
func (d *dialect) notPredicate(fn string, o operand) string {
	return fmt.Sprintf("the predicate of %s() must be a boolean, not %s%s", fn, o, d.boolHint(o))
}

// notCondition words a condition (an if or a validate rule) that is not
// boolean; o is the whole expression.
func (d *dialect) notCondition(o operand) string {
	return fmt.Sprintf("a condition must be a boolean, not %s%s", aTypeName(o.t), d.boolHint(o))
}

// conditionValue words a condition that produced a value that is not a
// boolean at run time.
func (d *dialect) conditionValue(o operand) string {
	msg := fmt.Sprintf("the condition produced %s, not a boolean", aTypeName(o.t))
	if o.t.Kind() == types.NullTypeKind {
		msg += d.nullHint(o, "false")
	}
	return msg
}

// indexOutOfRange words a list index past the list's end.
func indexOutOfRange(list operand, index int64, size int) string {
	what := "the list"
	if list.text != "" {
		what = list.text
	}
	return fmt.Sprintf("index %d is out of range: %s has %d %s", index, what, size, plural(size, "item"))
}

// missing says how a field or key is missing at run time.
type missing uint8

const (
	missOptional missing = iota // a declared field of an object
	missField                   // m.k of a map
	missKey                     // m['k'] of a map
)

// missingField words a field or key a map does not have at run time, in
// CEL (where expr reads nil instead).
func missingField(m operand, name string, how missing) string {
	what := "the map"
	if m.text != "" {
		what = m.text
	}
	switch how {
	case missKey:
		return fmt.Sprintf("%s has no key '%s': test it with '%s' in %s first", what, name, name, m.src())
	case missField:
		return fmt.Sprintf("%s has no field '%s': test it with has(%s.%s) first", what, name, m.src(), name)
	}
	return fmt.Sprintf("%s has no field '%s' (an optional field left out, or an answer not given?): test it with has(%s.%s), or read it with %s.?%s.orValue(...)",
		what, name, m.src(), name, m.src(), name)
}
