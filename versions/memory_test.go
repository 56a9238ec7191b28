package versions_test

import (
	"testing"
	"time"

	"github.com/flowserve/flowserve/versions"
	"github.com/flowserve/flowserve/versions/storetest"
)

var _ versions.Store = (*versions.Memory)(nil)

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) versions.Store {
		return versions.NewMemory(now)
	})
}
