package versions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/versions"
	"github.com/flowserve/flowserve/versions/storetest"
)

// TestBoltOldFile opens a version store written by an earlier flowserve
// (testdata/versions-v1.db.gz: three versions, the first kept longer than
// it was put for): each version is there with its Until, and Retire
// removes the ones whose Until has passed.
func TestBoltOldFile(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC) // the clock of the store that wrote it
	path := kvtest.Unzip(t, "testdata/versions-v1.db.gz", "versions.db")
	clock := kvtest.NewClock(start)
	s := openBolt(t, path, clock.Now)
	var want []*versions.Version
	for i, tool := range []string{"deploy", "rollback", "status"} {
		want = append(want, &versions.Version{ID: strings.Repeat(string(rune('a'+i)), 64), Tool: tool, Path: "flows/" + tool + ".yaml",
			Source: []byte("name: " + tool + "\nsteps: []\n"), Served: start.Add(-time.Hour), Until: start.Add(time.Duration(i+1) * time.Hour)})
	}
	want[0].Until = start.Add(5 * time.Hour) // Keep
	for _, w := range want {
		storetest.Same(t, "Get of a version of the old file", mustGet(t, s, w.ID), w)
	}
	r, err := s.Retire(ctx, start.Add(150*time.Minute))
	if err != nil || len(r) != 1 || r[0].ID != want[1].ID || r[0].Tool != "rollback" || !r[0].Until.Equal(want[1].Until) {
		t.Fatalf("Retire = %v, %v; want the second version", r, err)
	}
}
