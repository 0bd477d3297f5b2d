package turns

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRunOneAtATimeUntilYield(t *testing.T) {
	var now, most atomic.Int32
	var mu sync.Mutex
	var started []int
	release := make(chan struct{})
	Run([]int{2, 0, 1}, func(i int, yield func()) {
		mu.Lock()
		started = append(started, i)
		mu.Unlock()
		if n := now.Add(1); n > most.Load() {
			most.Store(n)
		}
		now.Add(-1)
		yield()
		if i == 1 {
			close(release) // the last one: all started before any finished waiting
		}
		<-release
	})
	assert.Equal(t, []int{2, 0, 1}, started)
	assert.Equal(t, int32(1), most.Load(), "one works at a time until it yields")
}

func TestOrder(t *testing.T) {
	assert.Equal(t, []int{1, 3, 0, 2}, Order(4, func(i int) bool { return i%2 == 1 }))
	assert.Equal(t, []int{0, 1, 2}, Order(3, func(int) bool { return false }))
}
