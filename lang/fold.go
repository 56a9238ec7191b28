package lang

import (
	"fmt"
	"sync"
)

// Constant returns the value of src, an expression of language ("cel",
// "" or "expr"), when it is a constant: it reads no variable, so that it
// compiles in an environment that declares none, and it evaluates without
// an error (0, 1 + 1, -1, size([1, 2])). The value is the one every run
// gets: expressions are deterministic in both languages, with no clock
// (expr's now is disabled) and no randomness. ok is false for anything
// else, an expression that does not parse among them.
func Constant(language, src string) (v any, ok bool) {
	r, parsed := ReadsOf(language, src)
	if !parsed || len(r.Refs) > 0 {
		return nil, false // a variable read: not a constant (and no need to compile)
	}
	env, err := constantEnv(language)
	if err != nil {
		return nil, false
	}
	p, errs := env.Compile(src, false)
	if len(errs) > 0 {
		return nil, false
	}
	v, err = p.Eval(map[string]any{})
	if err != nil {
		return nil, false
	}
	return v, true
}

// constantEnvs holds, by language name, the environment without
// variables Constant compiles in, built once per process.
var constantEnvs = map[string]func() (Env, error){
	"cel":  sync.OnceValues(func() (Env, error) { return (&celLanguage{}).NewEnv(nil, Options{}) }),
	"expr": sync.OnceValues(func() (Env, error) { return (&exprLanguage{}).NewEnv(nil, Options{}) }),
}

// constantEnv returns the environment of language that declares no
// variables, with the default cost limit.
func constantEnv(language string) (Env, error) {
	if language == "" {
		language = "cel"
	}
	build, ok := constantEnvs[language]
	if !ok {
		return nil, fmt.Errorf("unknown expression language %q", language)
	}
	return build()
}
