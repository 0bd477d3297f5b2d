package main

import "sync"

// turns interleaves the live benchmarks of two subjects, each on its own
// control plane, both up at once: a step of one (a control plane's start,
// one create run, one reaction run, the idle window, the noise) has the
// machine to itself, and whenever both wait for a step they take turns.
// So the two operators' reaction runs alternate, run by run, rather than
// being measured ten minutes apart on a shared host whose speed drifts.
// A nil *turns runs every step at once (one subject).
type turns struct {
	mu   sync.Mutex
	cond *sync.Cond
	// holder is the subject running a step, -1 none; last ran the last.
	holder, last int
	waiting      [2]bool
}

func newTurns() *turns {
	t := &turns{holder: -1, last: -1}
	t.cond = sync.NewCond(&t.mu)
	return t
}

// begin waits until who may run a step: none runs, and the other subject,
// if it waits too, ran the last.
func (t *turns) begin(who int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.waiting[who] = true
	for t.holder != -1 || (t.last == who && t.waiting[1-who]) {
		t.cond.Wait()
	}
	t.waiting[who], t.holder = false, who
}

// end ends who's step, if it runs one.
func (t *turns) end(who int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	if t.holder == who {
		t.holder, t.last = -1, who
	}
	t.mu.Unlock()
	t.cond.Broadcast()
}
