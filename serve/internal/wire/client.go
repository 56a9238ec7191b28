package wire

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/flow"
)

// The readers of what a client declared from go-sdk's decoded types: a
// request that came through the SDK (ModernVersion, ModernClient) and a
// session's initialize (LegacyClient). ReadClient reads the same from
// the raw bytes for the lean path.

// ModernVersion returns the request's protocol version when it declares
// one in _meta at or after 2026-07-28, and "" for session requests. It
// deliberately does not use the SDK's ProtocolVersion(), which reports the
// version a legacy client asked for at initialize (go-sdk-notes probe B).
func ModernVersion(meta mcp.Meta) string {
	v, _ := meta[MetaProtocolVersion].(string)
	if ParseEra(v).Stateless() {
		return v
	}
	return ""
}

// ModernClient reads the client's name and capabilities from a
// 2026-07-28 request's _meta: elicitation {} means form mode.
func ModernClient(meta mcp.Meta, version string) flow.Client {
	var d Declared
	if info, ok := meta[MetaClientInfo].(map[string]any); ok {
		d.Name, _ = info["name"].(string)
		d.Version, _ = info["version"].(string)
	}
	caps, _ := meta[MetaClientCapabilities].(map[string]any)
	if el, ok := caps["elicitation"].(map[string]any); ok {
		_, d.ElicitForm = el["form"]
		_, d.ElicitURL = el["url"]
		d.Elicitation = true
	}
	_, d.Sampling = caps["sampling"].(map[string]any)
	_, d.Roots = caps["roots"].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, d.Tasks = ext[TasksExtension].(map[string]any)
	return d.Client(Era20260728, version)
}

// LegacyClient reads a session client's name and capabilities from its
// initialize request.
func LegacyClient(ip *mcp.InitializeParams) flow.Client {
	if ip == nil {
		return flow.Client{}
	}
	var d Declared
	if ip.ClientInfo != nil {
		d.Name, d.Version = ip.ClientInfo.Name, ip.ClientInfo.Version
	}
	if caps := ip.Capabilities; caps != nil {
		if el := caps.Elicitation; el != nil {
			d.Elicitation, d.ElicitForm, d.ElicitURL = true, el.Form != nil, el.URL != nil
		}
		d.Sampling = caps.Sampling != nil
		// The SDK keeps no trace of a bare "roots": {} in a session's
		// capabilities, only of listChanged; its own clients set both.
		d.Roots = caps.RootsV2 != nil || caps.Roots.ListChanged
	}
	return d.Client(ParseEra(ip.ProtocolVersion), ip.ProtocolVersion)
}
