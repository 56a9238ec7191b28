package schemas

// Types returns the JSON types a schema document allows by its "type"
// keyword: the one type it names, or the strings of the list it gives;
// nil when it has no "type" (any type).
func Types(doc map[string]any) []string {
	switch t := doc["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
