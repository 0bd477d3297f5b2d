package turns

import "sync"

// Run calls do for each index of order, in that order: an item starts once
// the one before it has called yield (or returned), so one item works at a
// time until it waits; Run returns when all have returned.
func Run(order []int, do func(i int, yield func())) {
	var wg sync.WaitGroup
	turn := make(chan struct{}, 1)
	for _, i := range order {
		turn <- struct{}{}
		yield := sync.OnceFunc(func() { <-turn })
		wg.Go(func() {
			defer yield()
			do(i, yield)
		})
	}
	wg.Wait()
}

// Order is the indexes of n items, those first() names first, then the
// others, each in index order.
func Order(n int, first func(i int) bool) []int {
	order := make([]int, 0, n)
	for pass := range 2 {
		for i := range n {
			if first(i) == (pass == 0) {
				order = append(order, i)
			}
		}
	}
	return order
}
