package dsl

import "github.com/flowserve/flowserve/lang"

// Suggest returns the option that name most likely misspells, or "" when
// no option is close enough; see lang.Suggest, which it is, so parse
// errors, lint and expression errors suggest alike.
func Suggest(name string, options []string) string { return lang.Suggest(name, options) }
