package reliability

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
)

// faultMode is how an injected failure looks to the operator.
type faultMode int

const (
	// conflictBefore: 409, nothing written.
	conflictBefore faultMode = iota
	// serverErrorBefore: 500, nothing written.
	serverErrorBefore
	// serverErrorAfter: the write is done, but the answer is a 500.
	serverErrorAfter
)

func (m faultMode) String() string {
	return [...]string{"409 before the write", "500 before the write", "500 after the write"}[m]
}

// faults makes every third write fail: the first, fourth, seventh... of the
// object writes (create, update, patch, delete), and likewise of the status
// writes, counted apart so both are hit whatever the order of the
// operator's writes. Failures take each faultMode in turn.
type faults struct {
	mu       sync.Mutex
	writes   map[string]int
	injected map[string][]string
}

// next says whether this write of class fails, and how.
func (f *faults) next(class, what string) (faultMode, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.writes[class]
	f.writes[class]++
	if n%3 != 0 {
		return 0, false
	}
	mode := faultMode((n / 3) % 3)
	f.injected[class] = append(f.injected[class], fmt.Sprintf("%s: %s", what, mode))
	return mode, true
}

func (f *faults) report() map[string][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string][]string{}
	for k, v := range f.injected {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// do runs write unless this write fails before it, and returns the error
// the operator sees.
func (f *faults) do(class, verb string, obj client.Object, write func() error) error {
	what := fmt.Sprintf("%s %T %s", verb, obj, client.ObjectKeyFromObject(obj))
	mode, fail := f.next(class, what)
	if !fail {
		return write()
	}
	gr := schema.GroupResource{Resource: fmt.Sprintf("%T", obj)}
	switch mode {
	case conflictBefore:
		return apierrors.NewConflict(gr, obj.GetName(), fmt.Errorf("injected conflict"))
	case serverErrorBefore:
		return apierrors.NewInternalError(fmt.Errorf("injected server error"))
	}
	if err := write(); err != nil {
		return err
	}
	return apierrors.NewInternalError(fmt.Errorf("injected server error after the write"))
}

func (f *faults) newClient(cfg *rest.Config, opts client.Options) (client.Client, error) {
	c, err := client.NewWithWatch(cfg, opts)
	if err != nil {
		return nil, err
	}
	const objects, status = "object writes", "status writes"
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return f.do(objects, "create", obj, func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return f.do(objects, "update", obj, func() error { return c.Update(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return f.do(objects, "patch", obj, func() error { return c.Patch(ctx, obj, patch, opts...) })
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return f.do(objects, "delete", obj, func() error { return c.Delete(ctx, obj, opts...) })
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			return f.do(objects, "deleteAllOf", obj, func() error { return c.DeleteAllOf(ctx, obj, opts...) })
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			return f.do(status, sub+" create", obj, func() error { return c.SubResource(sub).Create(ctx, obj, subObj, opts...) })
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return f.do(status, sub+" update", obj, func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return f.do(status, sub+" patch", obj, func() error { return c.SubResource(sub).Patch(ctx, obj, patch, opts...) })
		},
	}), nil
}

// Every third write fails, with a conflict, a server error, or a server
// error after the write went through. The operator still converges on a
// HyperConverged with every setting, then on a spec change, and its
// uninstall still completes, all under the same faults.
func TestConvergesWithEveryThirdWriteFailing(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	f := &faults{writes: map[string]int{}, injected: map[string][]string{}}
	startOperator(t, operatorOptions{newClient: f.newClient})
	deleteHCAtEnd(t)

	createHC(t, fullHC)
	testenv.Eventually(t, "converged under faults", func() error { return converged(ctx, 300) })

	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.ProgressTimeout = ptrTo(int64(222)) })
	testenv.Eventually(t, "spec change applied under faults", func() error { return converged(ctx, 222) })

	// The uninstall runs under the same faults (deleteHCAtEnd checks it);
	// what was injected so far is checked here.
	injected := f.report()
	for _, class := range []string{"object writes", "status writes"} {
		if len(injected[class]) == 0 {
			t.Errorf("no fault injected into %s", class)
		}
	}
	// The modes read from what was injected, not from the generator's rule.
	modes := map[faultMode]bool{}
	for _, class := range injected {
		for _, what := range class {
			for _, m := range []faultMode{conflictBefore, serverErrorBefore, serverErrorAfter} {
				if strings.HasSuffix(what, ": "+m.String()) {
					modes[m] = true
				}
			}
		}
	}
	if len(modes) != 3 {
		t.Errorf("not every kind of fault was injected: %v", injected)
	}
	t.Logf("injected: %v", injected)
}
