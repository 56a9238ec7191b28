package lang

import (
	"strings"
	"unicode"
)

// scope is the typed variables of an environment, for did-you-mean
// suggestions of unknown names.
type scope struct {
	vars  map[string]*typ
	names []string // in declaration order
}

func (s *scope) add(name string, t *typ) {
	s.vars[name] = t
	s.names = append(s.names, name)
}

// fieldOffset returns the offset of field in src at or just after off
// (past a dot, a question mark and blanks), or off when it is not there.
func fieldOffset(src string, off int, field string) int {
	rs := []rune(src)
	i := off
	for i < len(rs) && (rs[i] == '.' || rs[i] == '?' || unicode.IsSpace(rs[i])) {
		i++
	}
	if strings.HasPrefix(string(rs[min(i, len(rs)):]), field) {
		return i
	}
	return off
}

// Suggest returns the option that name most likely misspells, or "" when
// no option is close enough. Closeness is the edit distance between the
// lower-cased strings, counting an insertion, a deletion, a substitution
// or a swap of two neighbouring letters as one edit; up to one edit is
// allowed for names of up to 3 letters, two for up to 6 and three beyond,
// and never as many as the name has letters. Ties go to the earlier
// option. An option equal to name is never suggested. It is the one
// did-you-mean of flowserve: dsl.Suggest and lint use it too.
func Suggest(name string, options []string) string {
	lname := []rune(strings.ToLower(name))
	limit := 3
	switch {
	case len(lname) <= 3:
		limit = 1
	case len(lname) <= 6:
		limit = 2
	}
	limit = min(limit, len(lname)-1)
	best, bestDist := "", limit+1
	for _, o := range options {
		if o == name {
			continue
		}
		if d := editDistance(lname, []rune(strings.ToLower(o))); d < bestDist {
			best, bestDist = o, d
		}
	}
	return best
}

// editDistance returns the optimal string alignment distance of a and b.
func editDistance(a, b []rune) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
