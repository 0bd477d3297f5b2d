package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/preview"
	"github.com/hcokit/hcokit/render"
	"github.com/hcokit/hcokit/validation"
)

// Path is where the webhook is served; config/webhook points the
// ValidatingWebhookConfiguration at it. It takes both API versions: a
// v1beta1 object is converted to v1 and validated there, and the messages
// name the v1beta1 fields.
const Path = "/validate-hco-kubevirt-io-hyperconverged"

// ConversionPath is where the CRD conversion webhook is served; the CRD's
// spec.conversion points at it.
const ConversionPath = "/convert"

// DefaultLookupTimeout bounds the existence checks of one admission request.
// It is below the ValidatingWebhookConfiguration's timeoutSeconds, so that a
// slow API server yields a clear error rather than a webhook timeout.
const DefaultLookupTimeout = 3 * time.Second

// WorkloadKinds returns the kinds whose existence blocks deletion and
// workload placement changes: VirtualMachine and DataVolume.
func WorkloadKinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{
		{Group: "kubevirt.io", Version: "v1", Kind: "VirtualMachine"},
		{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "DataVolume"},
	}
}

// Options configures the handler.
type Options struct {
	// Namespace is the operator namespace, the only one a HyperConverged may
	// be created in.
	Namespace string
	// Registry and Environment let the handler build the operands' objects to
	// check that jsonpatch annotations apply (see validation.Options).
	Registry    *hco.Registry
	Environment hco.Environment
	// Extensions are the operator's (extensions.Stock for the stock
	// binary): the operand check plans on the facts they add, as the
	// operator does.
	Extensions []hco.Extension
	// LookupTimeout bounds the existence checks; zero means DefaultLookupTimeout.
	LookupTimeout time.Duration
	// Operands, when set, dry-runs the operand writes an UPDATE implies
	// (preview.Cluster's CheckOperands): a component's refusal is the
	// webhook's. Register sets it from Registry when nil.
	Operands OperandChecker
}

// OperandChecker asks the API server whether the operand objects take what
// the operator would write for hc; preview.Cluster implements it.
type OperandChecker interface {
	CheckOperands(ctx context.Context, hc *hcov1.HyperConverged) error
}

// Handler validates HyperConverged CREATE, UPDATE and DELETE requests.
type Handler struct {
	reader client.Reader
	opts   Options
}

var _ admission.Handler = (*Handler)(nil)

// NewHandler returns a handler that answers existence questions through
// reader. Pass an uncached reader (manager.GetAPIReader()): the handler lists
// PartialObjectMetadata with limit=1 and must not start informers.
func NewHandler(reader client.Reader, opts Options) *Handler {
	if opts.LookupTimeout <= 0 {
		opts.LookupTimeout = DefaultLookupTimeout
	}
	return &Handler{reader: reader, opts: opts}
}

// Register serves a Handler on mgr's webhook server at Path, reading through
// mgr's API reader (no cache), a FinalizerHandler at FinalizerPath, the
// NamespaceGuard at NamespacePath (reading the HyperConverged from mgr's
// cache), and the conversion between the HyperConverged versions at
// ConversionPath.
func Register(mgr manager.Manager, opts Options) error {
	convert, err := ConversionHandler()
	if err != nil {
		return err
	}
	if opts.Operands == nil && opts.Registry != nil {
		// Reads and dry runs straight to the API server: no informer of
		// the operand kinds in the webhook.
		c, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), HTTPClient: mgr.GetHTTPClient()})
		if err != nil {
			return fmt.Errorf("client for the operand dry runs: %w", err)
		}
		if opts.Operands, err = preview.NewCluster(c, opts.Registry, opts.Environment, opts.Extensions...); err != nil {
			return err
		}
	}
	srv := mgr.GetWebhookServer()
	srv.Register(Path, &admission.Webhook{Handler: NewHandler(mgr.GetAPIReader(), opts)})
	srv.Register(FinalizerPath, &admission.Webhook{Handler: FinalizerHandler{Namespace: opts.Namespace}})
	srv.Register(NamespacePath, &admission.Webhook{Handler: NamespaceGuard{Reader: mgr.GetCache(), Namespace: opts.Namespace}})
	srv.Register(ConversionPath, convert)
	return nil
}

// MaxConversionBytes bounds a conversion request's body, as
// controller-runtime bounds an admission request's: past it the request is
// refused (413) before anything is decoded, so that a large body cannot
// take the webhook's memory.
const MaxConversionBytes = 7 << 20

// The conversion endpoint's other bounds. It answers the API server, but
// anything that reaches the pod can call it, unauthenticated: a body of
// many tiny objects decodes to far more memory than its size (63,791
// objects in 7 MiB took 582 MiB), a slow body holds a connection, and
// concurrent requests add up.
const (
	// MaxConversionObjects bounds the objects of one ConversionReview,
	// counted on the raw body before it is decoded. A cluster has one
	// HyperConverged (the webhook refuses any other name), so the API
	// server never sends many.
	MaxConversionObjects = 64
	// MaxConcurrentConversions bounds the requests converted at once; more
	// are refused with 429 (the API server retries a watch or list).
	MaxConcurrentConversions = 4
	// ConversionReadTimeout bounds reading a request's body.
	ConversionReadTimeout = 10 * time.Second
)

// ConversionHandler returns controller-runtime's conversion webhook for the
// HyperConverged (v1 is the hub, v1beta1 converts through it), its requests
// bounded: MaxConversionBytes, MaxConversionObjects,
// MaxConcurrentConversions, ConversionReadTimeout.
func ConversionHandler() (http.Handler, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{hcov1.AddToScheme, v1beta1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building the conversion scheme: %w", err)
		}
	}
	convert := conversion.NewWebhookHandler(scheme, conversion.NewRegistry())
	return Bounded(convert, ConversionBounds{Bytes: MaxConversionBytes, Objects: MaxConversionObjects, Concurrent: MaxConcurrentConversions, ReadTimeout: ConversionReadTimeout}), nil
}

// ConversionBounds are the limits Bounded keeps.
type ConversionBounds struct {
	// Bytes bounds the body; Objects the entries of request.objects.
	Bytes, Objects int
	// Concurrent bounds the requests handled at once.
	Concurrent int
	// ReadTimeout bounds reading the body.
	ReadTimeout time.Duration
}

// Bounded serves a ConversionReview with next within b: a request past a
// bound is refused (413 for its size or objects, 429 past the concurrent
// ones, 408 when its body is too slow) before next decodes anything.
func Bounded(next http.Handler, b ConversionBounds) http.Handler {
	slots := make(chan struct{}, b.Concurrent)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("too many conversion requests at once; limit is %d", b.Concurrent), http.StatusTooManyRequests)
			return
		}
		if r.ContentLength > int64(b.Bytes) {
			http.Error(w, fmt.Sprintf("request entity is too large; limit is %d bytes", b.Bytes), http.StatusRequestEntityTooLarge)
			return
		}
		// Not every connection supports a deadline (an HTTP/2 stream may):
		// then the body bound alone holds.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(b.ReadTimeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(b.Bytes)))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, fmt.Sprintf("request entity is too large; limit is %d bytes", b.Bytes), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "reading the request: "+err.Error(), http.StatusRequestTimeout)
			return
		}
		if reviewObjects(body) > b.Objects {
			http.Error(w, fmt.Sprintf("a ConversionReview of at most %d objects, as request.objects", b.Objects), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// reviewObjects counts the entries of a ConversionReview's request.objects,
// each kept as its raw bytes (no more memory than the body's size), not
// built into objects. A body that is not a ConversionReview is left to the
// decoder to refuse (0).
func reviewObjects(body []byte) int {
	var review struct {
		Request *struct {
			Objects []json.RawMessage `json:"objects"`
		} `json:"request"`
	}
	if json.Unmarshal(body, &review) != nil || review.Request == nil {
		return 0
	}
	return len(review.Request.Objects)
}

// Handle implements admission.Handler. It allows, denies with a message naming
// each bad field and how to fix it, or errors when it could not decide (the
// failure policy is Fail, so an error refuses the request too).
func (h *Handler) Handle(ctx context.Context, req admission.Request) (resp admission.Response) {
	defer func() {
		// The rules are pure code over arbitrary input; a bug must refuse the
		// request, not crash the server.
		if r := recover(); r != nil {
			logf.FromContext(ctx).Error(fmt.Errorf("%v", r), "panic while validating", "object", objectKey(req))
			resp = admission.Errored(http.StatusInternalServerError, fmt.Errorf("validating HyperConverged %s: internal error", objectKey(req)))
		}
	}()
	switch req.Operation {
	case admissionv1.Create:
		return h.create(req)
	case admissionv1.Update:
		return h.update(ctx, req)
	case admissionv1.Delete:
		return h.delete(ctx, req)
	default:
		return admission.Allowed("")
	}
}

func (h *Handler) validationOptions() validation.Options {
	return validation.Options{Registry: h.opts.Registry, Environment: h.opts.Environment}
}

func (h *Handler) create(req admission.Request) admission.Response {
	d, err := decode(req.Object.Raw, req.Kind)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding HyperConverged %s: %w", objectKey(req), err))
	}
	errs := validation.Identity(d.HC, h.opts.Namespace)
	errs = append(errs, validation.Spec(d.HC, h.validationOptions())...)
	return respond(d, errs, d.Warnings())
}

func (h *Handler) update(ctx context.Context, req admission.Request) admission.Response {
	d, err := decode(req.Object.Raw, req.Kind)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding HyperConverged %s: %w", objectKey(req), err))
	}
	was, err := decode(req.OldObject.Raw, req.Kind)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the old HyperConverged %s: %w", objectKey(req), err))
	}
	hc, old := d.HC, was.HC
	if !validation.Changed(old, hc) {
		return admission.Allowed("")
	}
	errs := validation.Spec(hc, h.validationOptions())
	if validation.WorkloadPlacementChanged(old, hc) {
		ws, err := h.workloads(ctx)
		if err != nil {
			return admission.Errored(http.StatusInternalServerError,
				fmt.Errorf("checking for workloads before changing the workload node placement of HyperConverged %s: %w", objectKey(req), err))
		}
		errs = append(errs, validation.WorkloadPlacementUpdate(old, hc, ws)...)
	}
	// As upstream: the operands' own admission is asked, unless the
	// HyperConverged is being deleted, with the updates the operator would
	// send: planned on the facts it gathers (the nodes, the platform).
	if len(errs) == 0 && h.opts.Operands != nil && hc.DeletionTimestamp.IsZero() && hc.Namespace == h.opts.Namespace {
		if err := h.opts.Operands.CheckOperands(ctx, hc); err != nil {
			return admission.Denied(err.Error()).WithWarnings(d.Warnings()...)
		}
	}
	return respond(d, errs, d.Warnings())
}

func (h *Handler) delete(ctx context.Context, req admission.Request) admission.Response {
	d, err := decode(req.OldObject.Raw, req.Kind)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding HyperConverged %s: %w", objectKey(req), err))
	}
	hc := d.HC
	// Only the HyperConverged the operator reconciles protects workloads.
	if hc.Name != hcov1.HyperConvergedName || hc.Namespace != h.opts.Namespace || !validation.BlocksDeletion(hc.Spec.Deployment.UninstallStrategy) {
		return admission.Allowed("")
	}
	ws, err := h.workloads(ctx)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError,
			fmt.Errorf("checking for workloads before deleting HyperConverged %s: %w", objectKey(req), err))
	}
	return respond(d, validation.Deletion(hc, ws), nil)
}

// workloads counts the VirtualMachines and DataVolumes in the cluster, with
// one metadata-only list of at most one item per kind, both at once. A kind
// whose CRD is not installed counts zero.
func (h *Handler) workloads(ctx context.Context) ([]validation.Workloads, error) {
	ctx, cancel := context.WithTimeout(ctx, h.opts.LookupTimeout)
	defer cancel()
	kinds := WorkloadKinds()
	out := make([]validation.Workloads, len(kinds))
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, gvk := range kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = h.count(ctx, gvk)
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// count lists at most one object of kind gvk, metadata only, and reads the
// total from the list's remainingItemCount.
func (h *Handler) count(ctx context.Context, gvk schema.GroupVersionKind) (validation.Workloads, error) {
	w := validation.Workloads{Kind: gvk.Kind}
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := h.reader.List(ctx, list, client.Limit(1)); err != nil {
		if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
			return w, nil
		}
		return w, fmt.Errorf("listing %s: %w", gvk.Kind, err)
	}
	w.Count = int64(len(list.Items))
	if list.RemainingItemCount != nil {
		w.Count += *list.RemainingItemCount
	} else if list.Continue != "" {
		// More exist but the server did not count them: at least two.
		w.Count++
		w.AtLeast = true
	}
	if len(list.Items) > 0 {
		w.Example = client.ObjectKeyFromObject(&list.Items[0]).String()
	}
	return w, nil
}

// decode reads a HyperConverged of either version from the raw JSON of an
// admission request (render.DecodeAdmitted): the object's apiVersion says
// which; without one, the request's kind does.
func decode(raw []byte, kind metav1.GroupVersionKind) (render.Decoded, error) {
	return render.DecodeAdmitted(raw, schema.GroupVersion{Group: kind.Group, Version: kind.Version})
}

// respond allows or denies, naming the fields of the version the request
// used (d's).
func respond(d render.Decoded, errs field.ErrorList, warnings []string) admission.Response {
	if len(errs) > 0 {
		return admission.Denied(d.FieldPaths(validation.Message(errs))).WithWarnings(warnings...)
	}
	return admission.Allowed("").WithWarnings(warnings...)
}

func objectKey(req admission.Request) string {
	if req.Namespace == "" {
		return req.Name
	}
	return req.Namespace + "/" + req.Name
}
