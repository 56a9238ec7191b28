package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/resources"
	"github.com/flowserve/flowserve/serve/internal/wire"
)

// The resources a Server serves are the declared ones (Options.Resources,
// ReplaceResources) and, with Options.FlowResources, each served
// flow's source and diagram (resources.ForFlow), tool and prompt flows
// alike. The SDK answers
// resources/list, resources/templates/list and resources/read on both
// eras; the read handlers here look the resource up on every read, so a
// replaced declaration serves the next read.

// servedKey identifies a served resource: static URIs and URI templates
// are separate lists in the SDK.
func servedKey(r *resources.Resource) string {
	if r.IsTemplate() {
		return "template " + r.URITemplate
	}
	return "uri " + r.URI
}

// ReplaceResources makes rs the declared resources: new and changed ones
// are added, those no longer declared removed, and sessions that asked
// for it are told that the resource list changed. Each must have a URI or
// URI template of its own, outside the flow: scheme (which the flows'
// resources use).
func (s *Server) ReplaceResources(rs []*resources.Resource) error {
	if err := checkDeclared(rs); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.declared = slices.Clone(rs)
	s.syncResources()
	return nil
}

// Resources returns the keys of the served resources (URIs, and URI
// templates), sorted.
func (s *Server) Resources() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.served))
	for _, r := range s.served {
		keys = append(keys, r.Key())
	}
	slices.Sort(keys)
	return keys
}

// checkDeclared checks that declared resources can be served together.
func checkDeclared(rs []*resources.Resource) error {
	seen := map[string]*resources.Resource{}
	for _, r := range rs {
		k := servedKey(r)
		if prev, dup := seen[k]; dup {
			return fmt.Errorf("resource %s is declared twice: at %s and at %s", r.Key(), prev.Pos, r.Pos)
		}
		seen[k] = r
		if strings.EqualFold(schemeOf(r.Key()), resources.FlowScheme) {
			return fmt.Errorf("resource %s (%s) uses the flow: scheme, which is reserved for the flows' own resources", r.Key(), r.Pos)
		}
	}
	return nil
}

// schemeOf returns the scheme of a URI or URI template, or "".
func schemeOf(uri string) string {
	if i := strings.IndexByte(uri, ':'); i > 0 {
		return uri[:i]
	}
	return ""
}

// syncResources brings the SDK's resources in line with the declared ones
// and those of the current flows. Resources that did not change are left
// alone, so clients are told only of real changes. s.mu must be held for
// writing.
func (s *Server) syncResources() {
	next := map[string]*resources.Resource{}
	for _, r := range s.declared {
		next[servedKey(r)] = r
	}
	flowRes := map[*flow.Program][]*resources.Resource{}
	if s.opts.FlowResources {
		flows := maps.Clone(s.tools)
		maps.Copy(flows, s.prompts) // names are unique across both
		for _, name := range slices.Sorted(maps.Keys(flows)) {
			p := flows[name]
			rs, ok := s.flowRes[p]
			if !ok {
				rs = resources.ForFlow(p.File(), calleeFiles(p))
			}
			flowRes[p] = rs
			for _, r := range rs {
				next[servedKey(r)] = r
			}
		}
	}
	s.flowRes = flowRes

	var goneURIs, goneTemplates []string
	for k, r := range s.served {
		if _, ok := next[k]; ok {
			continue
		}
		if r.IsTemplate() {
			goneTemplates = append(goneTemplates, r.URITemplate)
		} else {
			goneURIs = append(goneURIs, r.URI)
		}
	}
	if len(goneURIs) > 0 {
		s.mcp.RemoveResources(goneURIs...)
	}
	if len(goneTemplates) > 0 {
		s.mcp.RemoveResourceTemplates(goneTemplates...)
	}
	for _, k := range slices.Sorted(maps.Keys(next)) {
		r := next[k]
		if prev, ok := s.served[k]; ok && (prev == r || prev.Equal(r)) {
			next[k] = prev
			continue
		}
		if r.IsTemplate() {
			s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
				URITemplate: r.URITemplate,
				Name:        r.Name,
				Title:       r.Title,
				Description: r.Description,
				MIMEType:    r.MIMEType,
			}, s.readHandler(k))
			continue
		}
		if _, err := url.Parse(r.URI); err != nil {
			// Only a flow whose tool name lint rejects gets here.
			s.log.Warn("resource not served: its URI is not valid", "uri", r.URI, "err", err)
			delete(next, k)
			continue
		}
		s.mcp.AddResource(&mcp.Resource{
			URI:         r.URI,
			Name:        r.Name,
			Title:       r.Title,
			Description: r.Description,
			MIMEType:    r.MIMEType,
		}, s.readHandler(k))
	}
	s.served = next
}

// readHandler returns the resources/read handler of a served resource.
func (s *Server) readHandler(key string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		s.mu.RLock()
		r, ok := s.served[key]
		s.mu.RUnlock()
		if !ok {
			return nil, resourceNotFound(uri)
		}
		c, err := r.Read(ctx, uri)
		switch {
		case errors.Is(err, resources.ErrNotFound):
			return nil, resourceNotFound(uri)
		case err != nil:
			s.log.Error("resource read failed", "uri", uri, "resource", r.Name, "err", err)
			return nil, &jsonrpc.Error{Code: wire.CodeInternalError, Message: fmt.Sprintf("the resource %s could not be read", uri)}
		}
		return &mcp.ReadResourceResult{
			Contents: []*mcp.ResourceContents{{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob}},
			Cacheable: mcp.Cacheable{
				TTLMs:      int(r.Cache.TTL.Milliseconds()),
				CacheScope: r.Cache.Scope,
			},
		}, nil
	}
}

// resourceNotFound is the error of a read of a URI that nothing serves
// (SEP-2164): -32602 with the URI in data, on every protocol era.
func resourceNotFound(uri string) error {
	data, err := json.Marshal(map[string]string{"uri": uri})
	if err != nil {
		data = nil
	}
	return &jsonrpc.Error{Code: wire.CodeInvalidParams, Message: "Resource not found", Data: data}
}

// codeOldResourceNotFound is the code the SDK used for an unknown
// resource before SEP-2164 made it -32602.
const codeOldResourceNotFound = -32002

// resourceErrors is a receiving middleware that answers every
// resources/read the SDK finds no resource for with resourceNotFound.
// The SDK's own answer takes its code from a variable an environment
// setting (MCPGODEBUG) changes to -32002, and quotes the URI the way Go
// does, which is not JSON for control characters.
func resourceErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil || method != "resources/read" {
			return res, err
		}
		var je *jsonrpc.Error
		p, ok := req.GetParams().(*mcp.ReadResourceParams)
		if ok && errors.As(err, &je) && (je.Code == wire.CodeInvalidParams || je.Code == codeOldResourceNotFound) && je.Message == "Resource not found" {
			return nil, resourceNotFound(p.URI)
		}
		return res, err
	}
}

// calleeFiles finds the files of the flows p calls, directly or not, as
// they are linked to it; nil when it calls none.
func calleeFiles(p *flow.Program) dsl.Callees {
	files := map[string]*dsl.File{}
	var walk func(q *flow.Program)
	walk = func(q *flow.Program) {
		for _, c := range q.Callees() {
			if _, seen := files[c.Name()]; !seen {
				files[c.Name()] = c.File()
				walk(c)
			}
		}
	}
	walk(p)
	if len(files) == 0 {
		return nil
	}
	return func(name string) *dsl.File { return files[name] }
}
