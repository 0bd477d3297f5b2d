package openshift

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/waspagent"
)

// waspObjects are the wasp agent's objects for hc as built (the module's
// unit test compares them with upstream's handlers' output).
func waspObjects(t *testing.T, hc *hcov1.HyperConverged) []client.Object {
	t.Helper()
	facts := hco.OfflineFacts(operatorEnv)
	facts.Platform = hco.Platform{OpenShift: true}
	objs, err := waspagent.New().Desired(hc.DeepCopy(), facts)
	if err != nil || len(objs) == 0 {
		t.Fatalf("the wasp agent's objects: %v, %v", objs, err)
	}
	return objs
}

// expectWaspGone waits until none of the wasp agent's objects is left.
func expectWaspGone(t *testing.T, objs []client.Object, why string) {
	t.Helper()
	testenv.Eventually(t, "the wasp agent removed: "+why, func() error {
		for _, o := range objs {
			obj := o.DeepCopyObject().(client.Object)
			if err := k.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%T %s still there (%v)", obj, obj.GetName(), err)
			}
		}
		return nil
	})
}

// The wasp agent follows the memory overcommit both ways: at 150% its
// objects are made (the SecurityContextConstraints and the rest taken by
// the API server as sent, nothing pruned), at 100% they are removed, and
// the opt-out annotation removes them too.
func TestWaspAgentFollowsOvercommit(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	hc.Spec.Virtualization.HigherWorkloadDensity = &hcov1.HigherWorkloadDensityConfiguration{MemoryOvercommitPercentage: 150}
	testenv.CreateForTest(t, k, hc)
	objs := waspObjects(t, hc)
	// The DaemonSet's affinity follows the node facts, which differ offline.
	expectStoredAsSent(t, objs, func(kind, field string) bool { return kind == "DaemonSet" && field == "spec" })

	setOvercommit := func(percent int, annotations map[string]string) {
		testenv.Eventually(t, "the HyperConverged updated", func() error {
			cur := &hcov1.HyperConverged{}
			if err := k.Get(ctx, client.ObjectKeyFromObject(hc), cur); err != nil {
				return err
			}
			cur.Spec.Virtualization.HigherWorkloadDensity.MemoryOvercommitPercentage = percent
			cur.Annotations = annotations
			return k.Update(ctx, cur)
		})
	}
	setOvercommit(100, nil)
	expectWaspGone(t, objs, "no overcommit")

	setOvercommit(150, nil)
	for _, o := range objs {
		testenv.Stored(t, k, o)
	}
	setOvercommit(150, map[string]string{waspagent.OptOutAnnotation: "true"})
	expectWaspGone(t, objs, "opted out")
}
