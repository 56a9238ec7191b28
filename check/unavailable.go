package check

import (
	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
)

// The 2026-07-28 revision of MCP deprecates sampling and roots
// (SEP-2577): clients still serve them, but fewer will, and a client
// without the capability gets an error for a question with nowhere else
// to go. Check warns about each sample and roots question with no
// unavailable, at the node that lacks it: the question, or the all node
// that holds it (its questions take their unavailable from it).

// checkUnavailable reports sample and roots questions without an
// unavailable (no-unavailable, a warning).
func (c *checker) checkUnavailable() {
	for _, n := range c.f.Nodes {
		switch n.Kind {
		case dsl.KindSample, dsl.KindRoots:
			if n.Ask != nil && n.Ask.Unavailable == nil {
				c.warnf(n.Pos, codes.NoUnavailable, "%s %s has no unavailable: %s deprecated (SEP-2577) and a client may not offer %s, which fails the call; add unavailable: <id> naming the node to go to instead",
					n.Kind, n.Name(), deprecatedWhat(n.Kind), deprecatedIt(n.Kind))
			}
		case dsl.KindAll:
			if n.All == nil || n.All.Unavailable != nil {
				continue
			}
			for _, q := range n.All.Questions {
				if q.Kind == dsl.KindSample || q.Kind == dsl.KindRoots {
					c.warnf(n.Pos, codes.NoUnavailable, "this all node asks %s (%s %s) and has no unavailable: %s deprecated (SEP-2577) and a client may not offer %s, which fails the call; add unavailable: <id> to the all node, naming the node to go to instead",
						deprecatedAsk(q.Kind), q.Kind, q.Name(), deprecatedWhat(q.Kind), deprecatedIt(q.Kind))
					break
				}
			}
		}
	}
}

// deprecatedWhat names what a sample or roots question uses, with its
// verb: "sampling is", "roots are".
func deprecatedWhat(k dsl.Kind) string {
	if k == dsl.KindSample {
		return "sampling is"
	}
	return "roots are"
}

// deprecatedIt refers back to it: "it", "them".
func deprecatedIt(k dsl.Kind) string {
	if k == dsl.KindSample {
		return "it"
	}
	return "them"
}

// deprecatedAsk says what a sample or roots question asks the client
// for.
func deprecatedAsk(k dsl.Kind) string {
	if k == dsl.KindSample {
		return "the client's model"
	}
	return "the client's roots"
}
