package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// foregroundGC stands in for the garbage collector of kube-controller-manager,
// which the local control plane does not run, for the one thing an operator
// waits on it for: an object deleted with propagationPolicy=Foreground keeps
// the foregroundDeletion finalizer until the collector has deleted its
// dependents, and disappears only then. Upstream HCO deletes its operands so
// and waits for each to disappear; without a collector its HyperConverged is
// never deleted. Nothing the operator creates here has dependents (nothing
// runs its Deployments), so the collector would drop the finalizer at once:
// so does this, for each object the operator deleted (read from the audit
// log), as the benchmark's user.
type foregroundGC struct {
	auditLog string
	client   metadata.Interface
	// done holds the audit IDs of the deletes already handled.
	done map[string]bool
}

func newForegroundGC(cfg *rest.Config, auditLog string) (*foregroundGC, error) {
	mc, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &foregroundGC{auditLog: auditLog, client: mc, done: map[string]bool{}}, nil
}

// collect drops the foregroundDeletion finalizer of the objects the operator
// deleted since since.
func (g *foregroundGC) collect(ctx context.Context, since time.Time) error {
	events, err := readAudit(g.auditLog)
	if err != nil {
		return err
	}
	for _, e := range between(events, since, time.Now().Add(time.Hour)) {
		if e.Verb != "delete" || e.ObjectRef == nil || e.ObjectRef.Subresource != "" || g.done[e.AuditID] {
			continue
		}
		g.done[e.AuditID] = true
		r := e.ObjectRef
		gvr := schema.GroupVersionResource{Group: r.APIGroup, Version: r.APIVersion, Resource: r.Resource}
		ri := g.client.Resource(gvr).Namespace(r.Namespace)
		obj, err := ri.Get(ctx, r.Name, metav1.GetOptions{})
		if err != nil || obj.DeletionTimestamp == nil || !slices.Contains(obj.Finalizers, metav1.FinalizerDeleteDependents) {
			continue // gone, or not waiting on the collector
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"resourceVersion": obj.ResourceVersion,
			"finalizers":      slices.DeleteFunc(slices.Clone(obj.Finalizers), func(f string) bool { return f == metav1.FinalizerDeleteDependents }),
		}})
		if err != nil {
			return err
		}
		if _, err := ri.Patch(ctx, r.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("drop the foregroundDeletion finalizer of %s %s/%s: %w", gvr, r.Namespace, r.Name, err)
		}
	}
	return nil
}
