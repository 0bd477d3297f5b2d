package webhook

import (
	"context"
	"encoding/json"
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

// FinalizerHandler is the mutating webhook of the HyperConverged. On CREATE
// it adds hco.FinalizerName to the HyperConverged the operator reconciles,
// so that the finalizer is stored before the operator creates any operand
// object (the reconciler adds it too when it is missing, before anything
// else). On CREATE and UPDATE it writes into the HyperConverged what
// upstream HCO's mutating webhook writes (storeAsUpstream), with upstream's
// warnings and refusals, and the defaults upstream's operator writes with
// its first update (operatorDefaults). It is served v1 requests only: the API server
// converts a v1beta1 request to v1 for it and the patch back.
type FinalizerHandler struct {
	// Namespace is the operator namespace: only the singleton there gets
	// the finalizer, as only it is reconciled (and so only its deletion is
	// ever finished by the operator).
	Namespace string
}

var _ admission.Handler = FinalizerHandler{}

// Handle implements admission.Handler: a JSON patch, or an allowed
// response without one, or upstream's refusal.
func (h FinalizerHandler) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	// The wire form, not the Go type: a patch computed from a typed object
	// would remove every field the type lacks (an unknown feature gate).
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(req.Object.Raw); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding HyperConverged %s: %w", objectKey(req), err))
	}
	var warnings []string
	if req.Kind.Version == hcov1.GroupVersion.Version {
		hc, old, err := typedRequest(req)
		if err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		var refusal string
		fromV1beta1 := req.RequestKind != nil && req.RequestKind.Version != hcov1.GroupVersion.Version
		if warnings, refusal = storeAsUpstream(obj.Object, hc, old, fromV1beta1); refusal != "" {
			return admission.Denied(refusal)
		}
		operatorDefaults(obj.Object)
	}
	// The request's namespace: a create need not name it in the object.
	if req.Operation == admissionv1.Create && obj.GetName() == hcov1.HyperConvergedName && req.Namespace == h.Namespace {
		controllerutil.AddFinalizer(obj, hco.FinalizerName)
		// Upstream's operator labels the HyperConverged it reconciles
		// app=<name> with its first update; stored at create here.
		if labels := obj.GetLabels(); labels[hco.LabelApp] == "" {
			if labels == nil {
				labels = map[string]string{}
			}
			labels[hco.LabelApp] = obj.GetName()
			obj.SetLabels(labels)
		}
	}
	mutated, err := obj.MarshalJSON()
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("encoding HyperConverged %s: %w", objectKey(req), err))
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, mutated).WithWarnings(warnings...)
}

// typedRequest decodes the v1 HyperConverged of req, and the one it
// replaces on an UPDATE (nil otherwise).
func typedRequest(req admission.Request) (hc, old *hcov1.HyperConverged, err error) {
	hc = &hcov1.HyperConverged{}
	if err := json.Unmarshal(req.Object.Raw, hc); err != nil {
		return nil, nil, fmt.Errorf("decoding HyperConverged %s: %w", objectKey(req), err)
	}
	if req.Operation != admissionv1.Update {
		return hc, nil, nil
	}
	old = &hcov1.HyperConverged{}
	if err := json.Unmarshal(req.OldObject.Raw, old); err != nil {
		return nil, nil, fmt.Errorf("decoding the old HyperConverged %s: %w", objectKey(req), err)
	}
	return hc, old, nil
}
