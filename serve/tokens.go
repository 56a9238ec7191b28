package serve

import "github.com/flowserve/flowserve/serve/internal/guard"

// Tokens is a set of accepted bearer tokens, each optionally naming its
// caller for the logs (HTTPOptions.Tokens). Only SHA-256 digests of the
// tokens are kept. It is immutable and safe for concurrent use.
type Tokens = guard.Tokens

// MinTokenLength is the shortest token a tokens file may hold.
const MinTokenLength = guard.MinTokenLength

// LoadTokens reads a tokens file (see ParseTokens).
func LoadTokens(path string) (*Tokens, error) { return guard.LoadTokens(path) }

// ParseTokens reads the text of a tokens file: one token per line,
// optionally preceded by a caller's name and a colon ("ci-bot:6f1c…"),
// which the logs show as the caller. Blank lines are ignored, and so is
// everything from a '#' to the end of its line. A token is at least
// MinTokenLength characters of RFC 6750's token syntax (letters, digits
// and -._~+/, then optional '=' padding); a name is 1 to 64 letters,
// digits and _.@- starting with a letter or digit. Two lines may name the
// same caller (to rotate its token) but not hold the same token.
//
// Errors name the line and what is wrong, and never include a token.
func ParseTokens(data []byte) (*Tokens, error) { return guard.ParseTokens(data) }
