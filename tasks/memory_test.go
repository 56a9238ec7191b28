package tasks_test

import (
	"testing"
	"time"

	"github.com/flowserve/flowserve/tasks"
	"github.com/flowserve/flowserve/tasks/storetest"
)

var _ tasks.Store = (*tasks.Memory)(nil)

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) tasks.Store {
		return tasks.NewMemory(now)
	})
}
