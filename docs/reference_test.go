package docs

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestFlowReference keeps docs/flow-reference.md and
// schemas/flow.schema.json in step. In the reference, each table whose
// first column is "key" follows a marker, <!-- keys: POINTER... -->,
// naming the schema objects it documents by JSON pointer. The keys of
// the table must be exactly the property names of those objects and of
// the alternatives they lead to (through $ref, allOf, anyOf, oneOf, then,
// else, items and additionalProperties); and every object of the schema
// that has properties must be documented by some table.
func TestFlowReference(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(root, "schemas", "flow.schema.json"))), &schema); err != nil {
		t.Fatal(err)
	}
	ref := readFile(t, "flow-reference.md")
	tables := keyTables(t, ref)
	if len(tables) == 0 {
		t.Fatal("flow-reference.md has no key tables")
	}
	documented := map[string]bool{} // schema objects some table covers
	for _, tab := range tables {
		where := fmt.Sprintf("flow-reference.md:%d (keys: %s)", tab.line, strings.Join(tab.pointers, " "))
		want := map[string]string{} // key -> the object defining it
		for _, p := range tab.pointers {
			obj, ok := resolvePointer(schema, p)
			if !ok {
				t.Errorf("%s: schemas/flow.schema.json has no %s", where, p)
				continue
			}
			for _, o := range propertyObjects(schema, obj, p) {
				documented[o.pointer] = true
				for k := range o.props {
					want[k] = o.pointer
				}
			}
		}
		for _, k := range tab.keys {
			if _, ok := want[k]; ok {
				continue
			}
			t.Errorf("%s: documents key %q, which the schema does not define there", where, k)
		}
		have := map[string]bool{}
		for _, k := range tab.keys {
			if have[k] {
				t.Errorf("%s: key %q documented twice", where, k)
			}
			have[k] = true
		}
		for _, k := range sortedKeys(want) {
			if !have[k] {
				t.Errorf("%s: the schema defines key %q (at %s), which the table does not document", where, k, want[k])
			}
		}
	}
	for _, o := range allPropertyObjects(schema, "#") {
		if !documented[o.pointer] {
			t.Errorf("the schema defines keys at %s (%s) that flow-reference.md documents nowhere: add a table with <!-- keys: %s -->",
				o.pointer, strings.Join(sortedKeys(o.props), ", "), o.pointer)
		}
	}
}

// keyTable is a table of a markdown file that documents keys.
type keyTable struct {
	line     int
	pointers []string
	keys     []string
}

var markerRE = regexp.MustCompile(`^<!-- keys: (.+) -->$`)

// keyTables reads the tables whose header's first cell is "key", and the
// marker each must follow.
func keyTables(t *testing.T, md string) []keyTable {
	var out []keyTable
	lines := strings.Split(stripFences(md), "\n")
	for i := 0; i < len(lines); i++ {
		if !isKeyHeader(lines[i]) {
			continue
		}
		tab := keyTable{line: i + 1}
		if i == 0 || !markerRE.MatchString(lines[i-1]) {
			t.Errorf("flow-reference.md:%d: a key table without a <!-- keys: POINTER --> marker on the line before", i+1)
		} else {
			tab.pointers = strings.Fields(markerRE.FindStringSubmatch(lines[i-1])[1])
		}
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			first := strings.TrimSpace(strings.Split(lines[i], "|")[1])
			if !strings.HasPrefix(first, "`") || !strings.HasSuffix(first, "`") || strings.Count(first, "`") != 2 {
				t.Errorf("flow-reference.md:%d: a key row's first cell is one `key`, not %q", i+1, first)
				continue
			}
			tab.keys = append(tab.keys, strings.Trim(first, "`"))
		}
		if tab.pointers != nil {
			out = append(out, tab)
		}
	}
	return out
}

func isKeyHeader(line string) bool {
	cells := strings.Split(line, "|")
	return strings.HasPrefix(line, "|") && len(cells) > 2 && strings.TrimSpace(cells[1]) == "key"
}

// resolvePointer finds the object a JSON pointer names, following $ref
// wherever the pointer goes through one.
func resolvePointer(schema map[string]any, pointer string) (map[string]any, bool) {
	if pointer == "#" {
		return schema, true
	}
	if !strings.HasPrefix(pointer, "#/") {
		return nil, false
	}
	var cur any = schema
	for _, tok := range strings.Split(pointer[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if m, ok := cur.(map[string]any); ok {
			next, ok := m[tok]
			if !ok {
				r, isRef := m["$ref"].(string)
				if !isRef {
					return nil, false
				}
				target, ok := resolvePointer(schema, r)
				if !ok {
					return nil, false
				}
				if next, ok = target[tok]; !ok {
					return nil, false
				}
			}
			cur = next
			continue
		}
		if l, ok := cur.([]any); ok {
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(l) {
				return nil, false
			}
			cur = l[i]
			continue
		}
		return nil, false
	}
	m, ok := cur.(map[string]any)
	return m, ok
}

// propObject is an object of the schema that defines properties.
type propObject struct {
	pointer string
	props   map[string]any
}

// propertyObjects returns the objects with properties that obj (at
// pointer) is or leads to, by $ref and by the keywords that give
// alternatives or entries: allOf, anyOf, oneOf, then, else, items and
// additionalProperties. It does not enter properties (their values are
// documented by tables of their own) nor if (a condition, not a shape).
func propertyObjects(schema, obj map[string]any, pointer string) []propObject {
	var out []propObject
	seen := map[string]bool{}
	var walk func(o map[string]any, p string)
	walk = func(o map[string]any, p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		if props, ok := o["properties"].(map[string]any); ok {
			out = append(out, propObject{p, props})
		}
		if r, ok := o["$ref"].(string); ok {
			if target, ok := resolvePointer(schema, r); ok {
				walk(target, r)
			}
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			if l, ok := o[k].([]any); ok {
				for i, e := range l {
					if m, ok := e.(map[string]any); ok {
						walk(m, fmt.Sprintf("%s/%s/%d", p, k, i))
					}
				}
			}
		}
		for _, k := range []string{"then", "else", "items", "additionalProperties"} {
			if m, ok := o[k].(map[string]any); ok {
				walk(m, p+"/"+k)
			}
		}
	}
	walk(obj, pointer)
	return out
}

// allPropertyObjects returns every object of the schema that defines
// properties, except inside if (conditions) and not.
func allPropertyObjects(v any, pointer string) []propObject {
	var out []propObject
	switch v := v.(type) {
	case map[string]any:
		if props, ok := v["properties"].(map[string]any); ok {
			out = append(out, propObject{pointer, props})
		}
		for _, k := range sortedKeys(v) {
			p := pointer + "/" + escapeToken(k)
			switch k {
			case "if", "not", "defaultSnippets", "examples", "enum", "const", "default":
				// Conditions and values, not shapes.
			case "properties", "$defs", "patternProperties", "dependentSchemas":
				// Maps of names to schemas.
				if m, ok := v[k].(map[string]any); ok {
					for _, name := range sortedKeys(m) {
						out = append(out, allPropertyObjects(m[name], p+"/"+escapeToken(name))...)
					}
				}
			default:
				out = append(out, allPropertyObjects(v[k], p)...)
			}
		}
	case []any:
		for i, e := range v {
			out = append(out, allPropertyObjects(e, fmt.Sprintf("%s/%d", pointer, i))...)
		}
	}
	return out
}

func escapeToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
