package wire

import (
	"encoding/json"
	"mime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// decodedClient is what the lean path did before it read _meta raw:
// decode the members, then ModernClient.
func decodedClient(raw map[string]json.RawMessage) (c any, token any) {
	m := mcp.Meta{}
	for _, k := range []string{MetaClientInfo, MetaClientCapabilities, "progressToken"} {
		if v, ok := raw[k]; ok {
			if x, err := jsonx.Parse(v); err == nil {
				m[k] = x
			}
		}
	}
	return ModernClient(m, FirstModernVersion), m["progressToken"]
}

func TestLeanClientMatchesDecodedMeta(t *testing.T) {
	infos := []string{``, `{}`, `{"name":"c","version":"1"}`, `{"name":5,"version":null}`,
		`{"name":"a","name":"b"}`, `{"name":"a","name":7}`, `"x"`, `{"name":"\u00e9\"q"}`, `{"version":"2","extra":{"name":"no"}}`, `{bad`}
	caps := []string{``, `{}`, `{"elicitation":{}}`, `{"elicitation":{"form":{}}}`, `{"elicitation":{"url":{}}}`,
		`{"elicitation":{"form":{},"url":{}}}`, `{"elicitation":{"form":null}}`, `{"elicitation":true}`,
		`{"elicitation":{"url":{}},"elicitation":{"form":{}}}`, `{"elicitation":{"url":{}},"elicitation":5}`,
		`{"sampling":{},"elicitation":{"ur\u006c":{}}}`, `[]`, `{"elicitation":{"form":{}}`,
		`{"sampling":{},"roots":{"listChanged":true}}`, `{"sampling":true,"roots":null}`, `{"roots":{},"roots":5,"sampling":5,"sampling":{}}`,
		`{"elicitation":{"form":{}},"sampling":{"tools":{}},"roots":{}}`}
	tokens := []string{``, `null`, `"t"`, `7`, `1.5`, `{"a":1}`}
	for _, info := range infos {
		for _, cp := range caps {
			for _, tok := range tokens {
				meta := map[string]json.RawMessage{}
				if info != "" {
					meta[MetaClientInfo] = json.RawMessage(info)
				}
				if cp != "" {
					meta[MetaClientCapabilities] = json.RawMessage(cp)
				}
				if tok != "" {
					meta["progressToken"] = json.RawMessage(tok)
				}
				wantClient, wantToken := decodedClient(meta)
				if got, _ := ReadClient(meta); got != wantClient {
					t.Errorf("clientInfo %s, capabilities %s: client %+v, want %+v", info, cp, got, wantClient)
				}
				gotToken := ProgressToken(meta)
				if (gotToken == nil) != (wantToken == nil) || gotToken != nil && !jsonEqual(gotToken, wantToken) {
					t.Errorf("progressToken %s: %v, want %v", tok, gotToken, wantToken)
				}
			}
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestMetaStringMatchesUnmarshal(t *testing.T) {
	for _, raw := range []string{`"2026-07-28"`, `"2025-11-25"`, `null`, `5`, `"a\"b"`, `"\u0032026-07-28"`, `{}`, `"bad`} {
		var want string
		_ = json.Unmarshal([]byte(raw), &want)
		if got := MetaString(json.RawMessage(raw)); got != want {
			t.Errorf("MetaString(%s) = %q, want %q", raw, got, want)
		}
	}
}

// acceptsBothSplit is Eligible's Accept check as it was: every entry
// parsed with mime.ParseMediaType.
func acceptsBothSplit(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
			switch mt {
			case "application/json", "application/*", "*/*":
				jsonOK = true
			}
			switch mt {
			case "text/event-stream", "text/*", "*/*":
				streamOK = true
			}
		}
	}
	return jsonOK && streamOK
}

func TestAcceptsBothMatchesParseMediaType(t *testing.T) {
	entries := []string{"", "application/json", "text/event-stream", "Application/JSON", "text/event-stream; q=0.5",
		"*/*", "text/*", "application/*", "application/json,text/event-stream", "application/json, text/event-stream",
		" application/json ,", ",,", "application/json;", "text/html", "application/json/x", "TEXT/*;q=1"}
	for _, a := range entries {
		for _, b := range entries {
			for _, values := range [][]string{{a}, {a, b}, {a + "," + b}} {
				if got, want := acceptsBoth(values), acceptsBothSplit(values); got != want {
					t.Errorf("Accept %q: %v, want %v", values, got, want)
				}
			}
		}
		mt, _, _ := mime.ParseMediaType(a)
		if got := MediaType(a); got != mt {
			t.Errorf("MediaType(%q) = %q, want %q", a, got, mt)
		}
	}
}

func TestMetaKey(t *testing.T) {
	for _, k := range []string{MetaProtocolVersion, MetaClientInfo, MetaClientCapabilities, "progressToken", "other", "", "\xff"} {
		if got, want := metaKey([]byte(k)), jsonx.Key([]byte(k)); got != want {
			t.Errorf("metaKey(%q) = %q, want %q", k, got, want)
		}
	}
}
