package main

import (
	"runtime"
	"sync"
	"testing"
)

// Two subjects that both want steps alternate, and no two steps overlap.
// Each step lasts until the other subject, while it has steps left, waits
// for its next one: "both want every step", whatever the scheduler does
// between a step's end and the next begin (on a loaded host a subject could
// otherwise end a whole step before the other asked again).
func TestTurnsAlternate(t *testing.T) {
	tr := newTurns()
	var mu sync.Mutex
	var order []int
	remaining := [2]int{5, 5}
	otherWants := func(who int) bool {
		mu.Lock()
		left := remaining[1-who]
		mu.Unlock()
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return left == 0 || tr.waiting[1-who]
	}
	running := 0
	var wg sync.WaitGroup
	// Subject 0 holds a first step until subject 1 waits, so that both
	// then want every step.
	tr.begin(0)
	for who := range 2 {
		wg.Go(func() {
			for range 5 {
				tr.begin(who)
				mu.Lock()
				running++
				if running > 1 {
					t.Error("two steps at once")
				}
				order = append(order, who)
				running--
				remaining[who]--
				mu.Unlock()
				for !otherWants(who) {
					runtime.Gosched()
				}
				tr.end(who)
			}
		})
	}
	for {
		tr.mu.Lock()
		waiting := tr.waiting[0] && tr.waiting[1]
		tr.mu.Unlock()
		if waiting {
			break
		}
	}
	tr.end(0)
	wg.Wait()
	for i := 1; i < len(order); i++ {
		if order[i] == order[i-1] {
			t.Fatalf("steps did not alternate: %v", order)
		}
	}
	if len(order) != 10 {
		t.Fatalf("%d steps, want 10", len(order))
	}
}

// Without a second subject, steps run at once.
func TestNilTurns(t *testing.T) {
	var tr *turns
	tr.begin(0)
	tr.end(0)
}
