package testenv

import (
	"testing"
	"time"
)

// EventuallyTimeout and EventuallyPoll bound Eventually: long enough for a
// loaded 2-core machine, short enough to fail fast.
const (
	EventuallyTimeout = 20 * time.Second
	EventuallyPoll    = 25 * time.Millisecond
)

// Eventually polls f until it returns nil, and fails t with what and f's
// last error when EventuallyTimeout passes first.
func Eventually(t testing.TB, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(EventuallyTimeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(EventuallyPoll)
	}
}
