package webhook

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// NamespacePath is where the namespace guard is served; config/webhook
// points the ValidatingWebhookConfiguration's second webhook at it.
const NamespacePath = "/validate-namespace-hco-kubevirt-io"

// Upstream HCO's answers (pkg/webhooks/mutator/namespace_mutator.go at
// 03da3cf).
const (
	namespaceDeletionAdmitted = "the hcoNamespace doesn't contain HyperConverged CR, admitting its deletion"
	namespaceDeletionDenied   = "HyperConverged CR is still present, please remove it before deleting the containing hcoNamespace"
)

// NamespaceGuard refuses the deletion of the operator namespace while its
// HyperConverged exists, as upstream HCO does: deleting the namespace would
// delete the HyperConverged without the operator's uninstall of the
// cluster-scoped operands having run first. Deleting the HyperConverged
// first, then the namespace, is allowed.
type NamespaceGuard struct {
	// Reader finds the HyperConverged (the webhook's cache holds it).
	Reader client.Reader
	// Namespace is the operator namespace.
	Namespace string
}

var _ admission.Handler = NamespaceGuard{}

// Handle implements admission.Handler.
func (g NamespaceGuard) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Delete || req.Name != g.Namespace {
		return admission.Allowed("")
	}
	hc := &hcov1.HyperConverged{}
	err := g.Reader.Get(ctx, types.NamespacedName{Namespace: g.Namespace, Name: hcov1.HyperConvergedName}, hc)
	switch {
	case apierrors.IsNotFound(err):
		return admission.Allowed(namespaceDeletionAdmitted)
	case err != nil:
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("look up HyperConverged %s/%s: %w", g.Namespace, hcov1.HyperConvergedName, err))
	}
	return admission.Denied(namespaceDeletionDenied)
}
