package flow

// Identity is the authenticated caller of a round, as its expressions see
// it under principal (DESIGN §14): the subject of the caller's access
// token, the scopes it grants and its claims. Servers fill it in from the
// token they checked; a task's rounds get the identity of the call that
// started the task.
type Identity struct {
	// Subject is the token's sub; runs are bound to it
	// (Request.Principal).
	Subject string
	// Scopes are the scopes the token grants.
	Scopes []string
	// Claims are the token's claims (JSON values: string, float64, bool,
	// []any, map[string]any, nil), or its introspection's.
	Claims map[string]any
}

// noPrincipal is the value of principal when there is no authenticated
// caller (stdio, a token file): empty fields. It is shared by every such
// round, and never modified.
var noPrincipal = map[string]any{"sub": "", "scopes": []any{}, "claims": map[string]any{}}

// principalValue is the value of principal for id (noPrincipal for nil).
func principalValue(id *Identity) map[string]any {
	if id == nil {
		return noPrincipal
	}
	v := make(map[string]any, 3)
	scopes := make([]any, len(id.Scopes))
	for i, s := range id.Scopes {
		scopes[i] = s
	}
	v["sub"], v["scopes"], v["claims"] = id.Subject, scopes, id.Claims
	if id.Claims == nil {
		v["claims"] = map[string]any{}
	}
	return v
}

// Scopes returns the OAuth scopes the flow requires of its callers
// (`auth: {scopes}`), in file order, followed by those the flows it calls
// (once linked, directly or not) require that it does not: a caller may
// only run a callee its token would let it call. Nil when none requires
// any.
func (p *Program) Scopes() []string {
	if p.scopes != nil {
		return p.scopes
	}
	return p.file.ScopeNames()
}
