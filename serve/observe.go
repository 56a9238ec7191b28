package serve

import (
	"log/slog"
	"net/http"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/serve/internal/guard"
	"github.com/flowserve/flowserve/serve/observe"
)

// What the server records of its rounds (logs, metrics, spans) is
// package observe's: the Server keeps one observe.Rounds, made from its
// logger, its metrics and Options.Tracer, and starts an observe.Round
// for every round it runs (rounds.go).

// RedactingHandler returns a handler that passes each record to h with
// every secret value r knows replaced by flow.Redacted, in the message
// and in every attribute (observe.RedactingHandler); a nil r returns h.
// Servers wrap their logger in it, so that neither their own log lines
// nor the actions' (log.info of a with value) show a secret.
func RedactingHandler(h slog.Handler, r *flow.Redactor) slog.Handler {
	return observe.RedactingHandler(h, r)
}

// callerOf names the caller of a request with the given headers, when
// the tokens file names its token.
func (s *Server) callerOf(h http.Header) string {
	t := s.tokens.Load()
	if t == nil || h == nil {
		return ""
	}
	return t.NameOf(guard.Principal(h))
}
