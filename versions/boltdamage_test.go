package versions_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flowserve/flowserve/internal/boltcheck"
	"github.com/flowserve/flowserve/internal/kv/kvtest"
	"github.com/flowserve/flowserve/versions"
	"github.com/flowserve/flowserve/versions/storetest"
)

// TestBoltDamaged opens damaged and truncated copies of a real version
// store: each is refused with an error naming the file as the version
// store, saying what is wrong and how to recover, never a panic; an empty
// file and the good store open, the good one with its versions.
func TestBoltDamaged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	goodPath := filepath.Join(dir, "good.db")
	s, err := versions.OpenBolt(goodPath, versions.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var stored []*versions.Version
	for range 200 {
		v := storetest.Sample(t, time.Now())
		if err := s.Put(ctx, v); err != nil {
			t.Fatalf("Put: %v", err)
		}
		stored = append(stored, v)
	}
	s.Close()
	good, err := os.ReadFile(goodPath)
	if err != nil {
		t.Fatal(err)
	}
	psz, root := versionsRoot(t, goodPath)
	order := binary.NativeEndian
	edit := func(fn func(b []byte)) []byte {
		b := bytes.Clone(good)
		fn(b)
		return b
	}
	tests := []struct {
		name string
		data []byte
		want string // "" when the store opens
	}{
		{"meta page 0 flipped", edit(func(b []byte) { b[16+40] ^= 0xff }), "meta page 0 does not match its checksum"},
		{"a page that says it is another", edit(func(b []byte) { b[int(root)*psz+4] ^= 0xff }), fmt.Sprintf("page %d, which", root)},
		{"a branch pointing past the file", edit(func(b []byte) { order.PutUint64(b[int(root)*psz+16+8:], 1<<40) }), "outside pages 2 to"},
		{"cut to 100 bytes", good[:100], "it was cut short"},
		{"cut to 3 pages", good[:3*psz], "it was cut short"},
		{"cut mid-page", good[:len(good)/2+psz/2], "it was cut short"},
		{"a text file", []byte(strings.Repeat("not a bolt file\n", 100)), "it is not a bbolt database file"},
		{"empty", []byte{}, ""},
		{"the good store", good, ""},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("case%d", i), "versions.db")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := versions.OpenBolt(path, versions.BoltOptions{})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("OpenBolt = %v, want the store", err)
				}
				defer s.Close()
				if len(tc.data) > 0 {
					for _, v := range stored {
						storetest.Same(t, "Get", mustGet(t, s, v.ID), v)
					}
				}
				return
			}
			if err == nil {
				s.Close()
				t.Fatalf("OpenBolt succeeded, want %q", tc.want)
			}
			kvtest.WantDamaged(t, err, path, boltcheck.Kind{Store: "version store",
				Lost: "its flow versions are lost: runs in flight on a version no longer served may fail"}, tc.want)
		})
	}
}

// versionsRoot returns the page size of the file at path and the root
// page of its "versions" bucket.
func versionsRoot(t *testing.T, path string) (int, uint64) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var root uint64
	db.View(func(tx *bolt.Tx) error {
		root = uint64(tx.Bucket([]byte("versions")).Root())
		return nil
	})
	if root == 0 {
		t.Fatal("the versions bucket is inline: write more versions")
	}
	return db.Info().PageSize, root
}
