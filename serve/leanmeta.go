package serve

import (
	"encoding/json"
	"mime"
	"strings"

	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/jsonx"
)

// The lean path's readers of _meta and headers. They read the raw JSON
// members the request decoder kept, without building maps of interfaces,
// and mean exactly what modernClient and the SDK's checks mean on decoded
// values: each is the same decision, made on the bytes.

// leanClient reads the client's name and capabilities from the raw _meta
// of a 2026-07-28 request, as modernClient does from decoded _meta:
// elicitation {} means form mode. A member that is not well-formed JSON
// counts as absent, as it does when _meta is decoded.
func leanClient(meta map[string]json.RawMessage) flow.Client {
	c := flow.Client{Protocol: firstModernVersion}
	if raw, ok := meta[metaClientInfo]; ok {
		var name, version string
		err := jsonx.Fields(raw, func(k, v []byte) error {
			switch string(k) {
			case "name":
				name = jsonString(v)
			case "version":
				version = jsonString(v)
			}
			return nil
		})
		if err == nil {
			c.Name, c.Version = name, version
		}
	}
	if raw, ok := meta[metaClientCapabilities]; ok {
		// A repeated member counts as its last value.
		var elicitation, form, url, sampling, roots bool
		err := jsonx.Fields(raw, func(k, v []byte) error {
			switch string(k) {
			case "sampling":
				sampling = isObject(v)
			case "roots":
				roots = isObject(v)
			case "elicitation":
				elicitation, form, url = false, false, false
				if isObject(v) {
					elicitation = true
					return jsonx.Fields(v, func(k, _ []byte) error {
						switch string(k) {
						case "form":
							form = true
						case "url":
							url = true
						}
						return nil
					})
				}
			}
			return nil
		})
		if err == nil {
			if elicitation {
				c.Form = form || !url
				c.URL = url
			}
			c.Sampling, c.Roots = sampling, roots
		}
	}
	return c
}

// leanProgressToken returns the progressToken of a raw _meta, decoded,
// or nil when there is none (or it is null).
func leanProgressToken(meta map[string]json.RawMessage) any {
	raw, ok := meta["progressToken"]
	if !ok {
		return nil
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return nil
	}
	return v
}

// metaString decodes a raw JSON value as json.Unmarshal into a string
// would leave it: the string, or "" for anything else (null, another
// type, malformed JSON).
func metaString(raw json.RawMessage) string {
	// Every request names the same version: no need to decode it.
	if string(raw) == `"`+firstModernVersion+`"` {
		return firstModernVersion
	}
	return jsonString(raw)
}

// metaKey returns a key of _meta as a string; the keys the server reads
// are not allocated.
func metaKey(k []byte) string {
	switch string(k) {
	case metaProtocolVersion:
		return metaProtocolVersion
	case metaClientCapabilities:
		return metaClientCapabilities
	case metaClientInfo:
		return metaClientInfo
	case "progressToken":
		return "progressToken"
	}
	return jsonx.Key(k)
}

// leanString returns the string a raw JSON value holds, and whether it
// holds one; the members every request has the same values in are not
// decoded.
func leanString(raw []byte) (string, bool) {
	switch string(raw) {
	case `"2.0"`:
		return "2.0", true
	case `"tools/call"`:
		return "tools/call", true
	}
	v, err := jsonx.Parse(raw)
	s, ok := v.(string)
	return s, err == nil && ok
}

// jsonString returns the string a raw JSON value holds, or "" when it
// holds something else or is not valid.
func jsonString(raw []byte) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	v, err := jsonx.Parse(raw)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

// isObject reports whether a raw value that jsonx has already checked is
// an object. (jsonx accepts no JSON that encoding/json refuses, as its
// fuzz targets check, so such a value needs no json.Valid.)
func isObject(raw []byte) bool {
	return len(raw) > 0 && raw[0] == '{'
}

// mediaType returns the media type of a Content-Type or Accept entry, as
// mime.ParseMediaType returns it ("" when it cannot be parsed), without
// parsing the ones every client sends.
func mediaType(v string) string {
	switch v {
	case "application/json", "text/event-stream", "application/*", "text/*", "*/*":
		return v
	}
	mt, _, _ := mime.ParseMediaType(v)
	return mt
}

// acceptsBoth reports whether Accept headers accept both a JSON reply and
// an event stream (see leanEligible).
func acceptsBoth(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			switch mediaType(strings.TrimSpace(part)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}
