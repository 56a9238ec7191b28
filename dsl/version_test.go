package dsl

import "testing"

// TestVersionKAT pins the version of flows: what a deploy compares, and
// what states and tasks carry. Comments, key order, quoting, flow or
// block style and anchors give the same version; a changed value does
// not.
func TestVersionKAT(t *testing.T) {
	const base = "name: greet\ndescription: Greets.\nnodes:\n  - return: hi\n"
	const want = "728ddd283bcc255e51f5e6bf6ed78f1a688388dace011e4838388e4ccb878fd2"
	same := []string{
		base,
		"# a comment\nname: greet   # the tool\ndescription: 'Greets.'\nnodes:\n  - {return: \"hi\"}\n",
		"description: Greets.\nnodes: [{return: hi}]\nname: greet\n",
	}
	// An anchor in a key of its own adds that key: another value.
	anchored := "x: &d Greets.\nname: greet\ndescription: *d\nnodes:\n  - return: hi\n"
	for i, src := range same {
		f, diags := Parse("greet.yaml", []byte(src))
		if f == nil {
			t.Fatalf("%d: %v", i, diags)
		}
		if got := f.Version.String(); got != want {
			t.Errorf("%d: version %s, want %s", i, got, want)
		}
	}
	different := []string{
		"name: greet\ndescription: Greets!\nnodes:\n  - return: hi\n",
		"name: greet\ndescription: Greets.\nnodes:\n  - return: hello\n",
		"name: greet\ndescription: Greets.\nnodes:\n  - return: hi\n  - return: unreachable\n",
		anchored,
	}
	for i, src := range different {
		f, _ := Parse("greet.yaml", []byte(src))
		if f != nil && f.Version.String() == want {
			t.Errorf("different %d: same version as the base", i)
		}
	}
	v, ok := ParseVersion(want)
	if !ok || v.String() != want || v.Short() != want[:12] {
		t.Errorf("ParseVersion(%s) = %v, %v", want, v, ok)
	}
	if _, ok := ParseVersion("zz"); ok {
		t.Error("ParseVersion took a bad version")
	}
}

// TestVersionResolvesAliases: an alias and the value it stands for give
// the same version.
func TestVersionResolvesAliases(t *testing.T) {
	a, _ := Parse("a.yaml", []byte("name: greet\ndescription: &d hi\nnodes:\n  - return: *d\n"))
	b, _ := Parse("b.yaml", []byte("name: greet\ndescription: hi\nnodes:\n  - return: hi\n"))
	if a == nil || b == nil || a.Version != b.Version {
		t.Fatalf("versions differ: %v, %v", a, b)
	}
}
