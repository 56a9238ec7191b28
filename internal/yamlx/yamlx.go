// Package yamlx is the one reader of YAML with positions, on
// go.yaml.in/yaml/v3, for every file flowserve reads: flow files (dsl),
// resource declarations (resources) and test files (flowtest). A Reader
// reads a file's document (Read), its mappings (Pairs: merge keys,
// duplicate and non-string keys), its values (Value, Scalar: tags,
// integers, numbers) and the fields of its structure (String, Bool, Int,
// List, Mapping), with one set of rules and one wording for the problems
// it reports; a Source gives the position, in runes, of every rune of a
// scalar (ScalarPos).
package yamlx

import (
	"bytes"
	"errors"
	"io"

	"go.yaml.in/yaml/v3"
)

// The short tags of the YAML types the helpers tell apart.
const (
	TagStr       = "!!str"
	TagNull      = "!!null"
	TagBool      = "!!bool"
	TagInt       = "!!int"
	TagFloat     = "!!float"
	TagTimestamp = "!!timestamp"
	TagBinary    = "!!binary"
)

// IsString reports whether n is a scalar whose value is a string.
// Timestamps and binary scalars count as strings, as they do when yaml.v3
// decodes into any.
func IsString(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.ScalarNode {
		return false
	}
	switch n.ShortTag() {
	case TagStr, TagTimestamp, TagBinary:
		return true
	}
	return false
}

// IsNumber reports whether n is a scalar whose value is a number (an
// integer or a float).
func IsNumber(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.ScalarNode {
		return false
	}
	t := n.ShortTag()
	return t == TagInt || t == TagFloat
}

// IsNull reports whether n is a null scalar.
func IsNull(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == TagNull
}

// TypeName names the YAML type of n for messages: "a string", "a list".
func TypeName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case TagStr, TagTimestamp, TagBinary:
			return "a string"
		case TagInt:
			return "an integer"
		case TagFloat:
			return "a number"
		case TagBool:
			return "a boolean"
		case TagNull:
			return "null"
		}
		return "a value tagged " + n.ShortTag()
	}
	return "an alias"
}

// DecodeDocs reads at most two YAML documents from src: enough to tell a
// file of one document from one of several.
func DecodeDocs(src []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []*yaml.Node
	for len(docs) < 2 {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return docs, nil
			}
			return docs, err
		}
		docs = append(docs, &n)
	}
	return docs, nil
}
