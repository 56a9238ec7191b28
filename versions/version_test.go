package versions_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/versions"
	"github.com/flowserve/flowserve/versions/storetest"
)

func TestValidID(t *testing.T) {
	id := storetest.NewID(t)
	if !versions.ValidID(id) {
		t.Errorf("ValidID(%q) = false", id)
	}
	for _, bad := range []string{"", id[:63], id + "a", strings.ToUpper(id), strings.Repeat("g", 64), strings.Repeat("é", 32)} {
		if versions.ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}

// TestStoredFormat checks the field names of the stored format, which
// instances on one store share, and that Unmarshal refuses what is not a
// version.
func TestStoredFormat(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	id := strings.Repeat("ab", 32)
	b, err := versions.Marshal(&versions.Version{ID: id, Tool: "deploy", Path: "flows/deploy.yaml", Source: []byte("name: deploy\n"), Served: at, Until: at.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + id + `","tool":"deploy","path":"flows/deploy.yaml","source":"bmFtZTogZGVwbG95Cg==","served":"2026-03-01T12:00:00Z","until":"2026-03-01T13:00:00Z"}`
	if string(b) != want {
		t.Errorf("Marshal:\n got %s\nwant %s", b, want)
	}
	v, err := versions.Unmarshal(b)
	if err != nil || v.ID != id || string(v.Source) != "name: deploy\n" || !v.Until.Equal(at.Add(time.Hour)) {
		t.Errorf("Unmarshal = %+v, %v", v, err)
	}
	for _, bad := range []string{"", "not json", `{"id":"abc"}`, `{"tool":"deploy"}`, `{"id":"` + id + `","source":"!"}`} {
		if _, err := versions.Unmarshal([]byte(bad)); !errors.Is(err, versions.ErrCorrupt) {
			t.Errorf("Unmarshal(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}
