package webhook

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
)

// FinalizerPath is where the mutating webhook is served; config/webhook
// points the MutatingWebhookConfiguration at it.
const FinalizerPath = "/mutate-hco-kubevirt-io-hyperconverged"

// FinalizerHandler adds hco.FinalizerName to the HyperConverged the operator
// reconciles when it is created, so that the finalizer is stored before
// the operator creates any operand object. The reconciler adds it too when
// it is missing (no webhook), before anything else.
type FinalizerHandler struct {
	// Namespace is the operator namespace: only the singleton there gets
	// the finalizer, as only it is reconciled (and so only its deletion is
	// ever finished by the operator).
	Namespace string
}

var _ admission.Handler = FinalizerHandler{}

// Handle implements admission.Handler: a JSON patch adding the finalizer,
// or an allowed response without one.
func (h FinalizerHandler) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create {
		return admission.Allowed("")
	}
	// The wire form, not the Go type: a patch computed from a typed object
	// would remove every field the type lacks (an unknown feature gate).
	hc := &unstructured.Unstructured{}
	if err := hc.UnmarshalJSON(req.Object.Raw); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding HyperConverged %s: %w", objectKey(req), err))
	}
	// The request's namespace: a create need not name it in the object.
	if hc.GetName() != hcov1.HyperConvergedName || req.Namespace != h.Namespace || controllerutil.ContainsFinalizer(hc, hco.FinalizerName) {
		return admission.Allowed("")
	}
	controllerutil.AddFinalizer(hc, hco.FinalizerName)
	mutated, err := hc.MarshalJSON()
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("encoding HyperConverged %s: %w", objectKey(req), err))
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, mutated)
}
