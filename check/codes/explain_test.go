package codes_test

import (
	"slices"
	"testing"

	"github.com/flowserve/flowserve/check/explain"
)

// lintNamespaces are the directories, relative to this one, whose
// codes.go declares codes flowserve lint reports: the flow files' (this
// package's) and the resource declarations'.
// flowtest's are flowserve test's.
var lintNamespaces = []string{".", "../../resources"}

// TestCodesExplained checks that every code lint reports, as codes.go
// declares them, has an explanation (check/explain/codes/CODE.md, which
// flowserve lint --explain prints) and that every explanation is of such
// a code. cli's TestExplainExamples lints each explanation's example.
func TestCodesExplained(t *testing.T) {
	declared := map[string]bool{}
	for _, dir := range lintNamespaces {
		for _, c := range readCodes(t, dir) {
			declared[c.value] = true
			if _, ok := explain.Lookup(c.value); !ok {
				t.Errorf("%s: %s (%s) has no explanation: write check/explain/codes/%s.md", c.pos, c.name, c.value, c.value)
			}
		}
	}
	codes := explain.Codes()
	for _, code := range codes {
		if !declared[code] {
			t.Errorf("check/explain/codes/%s.md explains a code no codes.go of %v declares", code, lintNamespaces)
		}
	}
	if len(codes) < len(declared) || !slices.IsSorted(codes) {
		t.Errorf("explain.Codes() = %d codes, unsorted or fewer than the %d declared", len(codes), len(declared))
	}
}
