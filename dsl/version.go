package dsl

import (
	"crypto/sha256"
	"encoding/hex"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/internal/jsonx"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// versionPrefix starts what a flow's version hashes, so that no other
// hash of the same bytes is mistaken for a version.
const versionPrefix = "flowserve flow version 1\n"

// Version is the version of a flow: the SHA-256 of its canonical form,
// the document's value (aliases and merge keys resolved) encoded by
// jsonx.Append (keys sorted, numbers and strings in one spelling), after
// versionPrefix. Comments, key order, quoting and layout do not change
// it; any change of a value does. TestVersionKAT pins it.
type Version [32]byte

// String returns v in hex.
func (v Version) String() string { return hex.EncodeToString(v[:]) }

// Short returns the first 12 hex digits of v, for logs and metrics.
func (v Version) Short() string { return v.String()[:12] }

// ParseVersion reads a version in hex (String's form).
func ParseVersion(s string) (Version, bool) {
	var v Version
	if len(s) != 2*len(v) {
		return v, false
	}
	if _, err := hex.Decode(v[:], []byte(s)); err != nil {
		return Version{}, false
	}
	return v, true
}

// versionOf returns the version of the document tree (nil: an empty
// file). A tree whose value cannot be read (it has errors Parse reports)
// hashes what could be read.
func versionOf(tree *yaml.Node) Version {
	var v any
	if tree != nil {
		v, _ = yamlx.Reader{}.Value(tree)
	}
	raw, err := jsonx.Append(nil, v)
	h := sha256.New()
	h.Write([]byte(versionPrefix))
	if err == nil {
		h.Write(raw)
	}
	var out Version
	h.Sum(out[:0])
	return out
}
