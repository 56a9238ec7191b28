package check

import (
	"github.com/flowserve/flowserve/dsl"
	"slices"
	"strings"
	"unicode"

	"github.com/flowserve/flowserve/check/codes"
)

// The MCP specification forbids asking for sensitive information in form
// mode: "Servers MUST NOT use form mode elicitation to request sensitive
// information" (passwords, API keys, access tokens, payment credentials);
// they must use URL mode. Check looks for such requests in the names,
// titles and descriptions of the form's free-entry fields (strings without
// choices, numbers) and in the ask's message.

// sensitiveTerm is a run of words that names sensitive information.
type sensitiveTerm struct {
	words []string // lower-case
	what  string   // what it asks for, with its article
}

// sensitiveTerms returns the terms Check looks for. Single words that are
// also ordinary English (key, card, code) only count inside a longer term.
func sensitiveTerms() []sensitiveTerm {
	t := func(what string, terms ...string) []sensitiveTerm {
		var out []sensitiveTerm
		for _, s := range terms {
			out = append(out, sensitiveTerm{words: strings.Fields(s), what: what})
		}
		return out
	}
	var all []sensitiveTerm
	for _, group := range [][]sensitiveTerm{
		t("a password", "password", "passwords", "passwd", "pwd", "passphrase", "passcode", "pass code"),
		t("a secret", "secret", "secrets", "client secret"),
		t("a token", "token", "tokens", "accesstoken", "authtoken"),
		t("an API key", "api key", "api keys", "apikey", "apikeys", "access key", "secret key", "private key",
			"signing key", "encryption key", "ssh key", "gpg key", "pgp key", "license key", "auth key"),
		t("credentials", "credential", "credentials", "creds"),
		t("a card number", "credit card", "debit card", "card number", "cardnumber", "card no", "cc number",
			"card details", "payment card"),
		t("a card security code", "cvv", "cvc", "cvv2", "cvc2", "card security code", "card verification"),
		t("a PIN", "pin", "pin code", "pincode", "pin number"),
		t("a social security number", "ssn", "social security number", "social security"),
		t("a one-time code", "otp", "totp", "one time code", "2fa code", "mfa code", "verification code",
			"authentication code", "authorization code", "auth code", "recovery code", "backup code"),
		t("a recovery phrase", "seed phrase", "recovery phrase", "mnemonic phrase"),
	} {
		all = append(all, group...)
	}
	return all
}

// notSensitiveAfter returns words that, right after a term, show that the
// text is about the secret rather than asking for it ("token count",
// "password policy", "API key name").
func notSensitiveAfter() []string {
	return []string{
		"name", "names", "count", "counts", "limit", "limits", "budget", "usage", "used", "length", "policy",
		"policies", "reset", "manager", "strength", "hint", "rules", "requirements", "expiry", "expiration",
		"expires", "label", "labels", "id", "ids", "type", "types", "scope", "scopes", "permissions", "rotation",
		"age", "per", "window", "price", "cost", "costs", "size", "holder", "brand", "issuer", "santa",
	}
}

// notSensitiveBefore returns words that, right before a term, show the same
// ("max tokens", "number of tokens", "forgot password").
func notSensitiveBefore() []string {
	return []string{"max", "maximum", "min", "minimum", "of", "reset", "forgot", "forgotten", "no", "without", "top"}
}

// requestVerbs returns words that, before a term in a message, ask for it.
func requestVerbs() []string {
	return []string{"enter", "type", "provide", "give", "paste", "input", "share", "send", "tell", "supply",
		"submit", "what", "whats", "need", "needs", "require", "requires", "fill"}
}

// word is a word of a text, lower-cased, with whether it was written in
// capitals.
type word struct {
	lower string
	caps  bool
}

// splitWords splits text into words at spaces, punctuation, underscores,
// hyphens and camelCase boundaries; sentence ends become "." words.
func splitWords(text string) []word {
	var out []word
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		s := string(cur)
		caps := len(cur) > 1 && strings.ToUpper(s) == s && strings.ToLower(s) != s
		out = append(out, word{lower: strings.ToLower(s), caps: caps})
		cur = nil
	}
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(cur) > 0 && unicode.IsUpper(r) {
				prev := cur[len(cur)-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				// apiKey → api Key; APIKey → API Key; cvv2Code → cvv2 Code;
				// 2FA stays one word.
				if unicode.IsLower(prev) || (unicode.IsDigit(prev) || unicode.IsUpper(prev)) && nextLower {
					flush()
				}
			}
			cur = append(cur, r)
		case r == '\'' || r == '’':
			// "what's" stays one word.
		default:
			flush()
			if r == '.' || r == '?' || r == '!' || r == ':' || r == ';' {
				out = append(out, word{lower: "."})
			}
		}
	}
	flush()
	return out
}

// sensitiveMatch is where a term was found in a list of words.
type sensitiveMatch struct {
	term  sensitiveTerm
	start int // index of the term's first word
}

// findSensitive returns the first term in words that reads as a request for
// sensitive information, or false. In a name (a property name), "pin" is a
// PIN even in lower case.
func findSensitive(words []word, name bool) (sensitiveMatch, bool) {
	terms := sensitiveTerms()
	for i := range words {
		for _, t := range terms {
			if !termAt(words, i, t) {
				continue
			}
			end := i + len(t.words)
			if end < len(words) && slices.Contains(notSensitiveAfter(), words[end].lower) {
				continue
			}
			if i > 0 && slices.Contains(notSensitiveBefore(), words[i-1].lower) {
				continue
			}
			if aboutSecret(words, i) {
				continue
			}
			if t.words[0] == "pin" && len(t.words) == 1 && !words[i].caps && !name {
				// "pin" alone is a PIN only in capitals, or as a whole name:
				// "pin the issue" is not.
				continue
			}
			return sensitiveMatch{term: t, start: i}, true
		}
	}
	return sensitiveMatch{}, false
}

// aboutSecret reports whether the term at words[i] follows "name of",
// "label for" and the like in the same phrase ("Name of the new API key"):
// the text is about something else that belongs to the secret.
func aboutSecret(words []word, i int) bool {
	for j := i - 1; j > 0 && j >= i-4 && words[j].lower != "."; j-- {
		if (words[j].lower == "of" || words[j].lower == "for") && slices.Contains(notSensitiveAfter(), words[j-1].lower) {
			return true
		}
	}
	return false
}

// termAt reports whether t's words start at words[i].
func termAt(words []word, i int, t sensitiveTerm) bool {
	if i+len(t.words) > len(words) {
		return false
	}
	for j, w := range t.words {
		if words[i+j].lower != w {
			return false
		}
	}
	return true
}

// sensitiveText returns what a property name, title or description asks
// for when it names sensitive information, or "". name says that text is a
// property name.
func sensitiveText(text string, name bool) string {
	if m, ok := findSensitive(splitWords(text), name); ok {
		return m.term.what
	}
	return ""
}

// sensitiveRequest returns what a message asks for when it asks for
// sensitive information: a term with a request verb before it in the same
// sentence ("Enter your API key"), or "". A word between them that names
// something else about the secret ("Enter the name of the API key") means
// the message does not ask for the secret itself.
func sensitiveRequest(text string) string {
	words := splitWords(text)
	for from := 0; from < len(words); {
		m, ok := findSensitive(words[from:], false)
		if !ok {
			return ""
		}
		at := from + m.start
	scan:
		for j := at - 1; j >= 0 && j >= at-6 && words[j].lower != "."; j-- {
			switch {
			case slices.Contains(requestVerbs(), words[j].lower):
				return m.term.what
			case slices.Contains(notSensitiveAfter(), words[j].lower):
				break scan
			}
		}
		from = at + 1
	}
	return ""
}

// freeEntry reports whether a form property lets the user type anything:
// a string without choices, or a number. Only those can carry a secret.
func freeEntry(schema map[string]any) bool {
	switch schema["type"] {
	case "string":
		_, hasEnum := schema["enum"]
		_, hasOneOf := schema["oneOf"]
		return !hasEnum && !hasOneOf
	case "number", "integer":
		return true
	}
	return false
}

// checkSensitive reports a form-mode ask that asks for sensitive
// information.
func (c *checker) checkSensitive(n *dsl.Node) {
	a := n.Ask
	if a == nil || a.Form == nil {
		return
	}
	const advice = "MCP forbids asking for it in form mode: use a url ask, which sends the user to a page you serve"
	free, flagged := false, false
props:
	for _, prop := range a.Form.Properties {
		if !freeEntry(prop.Schema) {
			continue
		}
		free = true
		if what := sensitiveText(prop.Name, true); what != "" {
			c.errorf(prop.Pos, codes.SensitiveForm, "form property %q asks for %s; %s", prop.Name, what, advice)
			flagged = true
			continue
		}
		node := c.ix.ValueOfKey(prop.Pos)
		for _, k := range []string{"title", "description"} {
			text, _ := prop.Schema[k].(string)
			if what := sensitiveText(text, false); what != "" {
				_, pos := c.ix.Find(node, prop.Pos, k)
				c.errorf(pos, codes.SensitiveForm, "form property %q asks for %s (its %s says %q); %s", prop.Name, what, k, text, advice)
				flagged = true
				continue props
			}
		}
	}
	if !free || flagged || a.Message == nil {
		return
	}
	var text strings.Builder
	for _, p := range a.Message.Parts {
		if p.Expr == nil {
			text.WriteString(p.Text)
		} else {
			text.WriteString(" x ")
		}
	}
	if what := sensitiveRequest(text.String()); what != "" {
		c.errorf(a.Message.Pos, codes.SensitiveForm, "the message asks for %s in a form; %s", what, advice)
	}
}
