package testenv

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/hcokit/hcokit/extensions"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/webhook"
)

// OperatorOptions are what a test varies of the operator StartOperator runs.
type OperatorOptions struct {
	// Config is the REST config (one that counts requests, say); nil: the
	// environment's.
	Config *rest.Config
	// Metrics registers the operator's metrics; nil: a registry of its own,
	// so that operators of one test process do not collide.
	Metrics prometheus.Registerer
}

// StartOperator runs the stock reconciler (manager.New, a scheme with
// every operand type, the stock extensions) for reg's operands until the environment stops, as
// the installed operator runs, and returns the reconciler.
func (e *Env) StartOperator(reg *hco.Registry, environment hco.Environment, o OperatorOptions) (*hco.Reconciler, error) {
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		return nil, err
	}
	if o.Config == nil {
		o.Config = e.Config
	}
	if o.Metrics == nil {
		o.Metrics = prometheus.NewRegistry()
	}
	mgr, r, err := manager.New(o.Config, reg, environment, manager.Options{Manager: ManagerOptions(scheme), Metrics: o.Metrics, Extensions: extensions.Stock()})
	if err != nil {
		return nil, err
	}
	e.AtStop(RunManager(mgr))
	return r, nil
}

// StartWebhook serves the HyperConverged webhooks and conversion on
// envtest's webhook address until the environment stops, as `hco-operator
// webhook` serves them: a manager with no controllers and webhook.Register,
// with the stock extensions unless opts names others.
func (e *Env) StartWebhook(opts webhook.Options) error {
	if opts.Extensions == nil {
		// The stock binary's, as StartOperator's.
		opts.Extensions = extensions.Stock()
	}
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(e.Config, e.WebhookManagerOptions(scheme))
	if err != nil {
		return err
	}
	if err := webhook.Register(mgr, opts); err != nil {
		return err
	}
	e.AtStop(RunManager(mgr))
	return nil
}
