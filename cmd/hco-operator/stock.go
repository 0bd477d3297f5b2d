package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/observability"
	"github.com/hcokit/hcokit/operands/stock"
)

// defaultOperands are the operands the stock binary runs unless --operands
// says otherwise (stock.Default); allOperands names every one it can run,
// in registry order (stock.Operands), for the flags' help.
var (
	defaultOperands = stock.DefaultList()
	allOperands     = operandNames()
)

func operandNames() string {
	var names []string
	for _, op := range stock.Operands() {
		names = append(names, op.Name())
	}
	return strings.Join(names, ", ")
}

// stockRegistry returns the stock operands restricted to operandList, the
// value of --operands (see selectOperands).
func stockRegistry(operandList string) (*hco.Registry, error) {
	names, _, err := selectOperands(operandList)
	if err != nil {
		return nil, err
	}
	reg, err := stock.Registry(names...)
	if err != nil {
		return nil, fmt.Errorf("--operands: %w", err)
	}
	return reg, nil
}

// selectOperands reads a value of --operands: the comma-separated operands
// to run, or changes of the default ones (+name adds one, -name leaves one
// out, e.g. +hpp); empty, the default ones. named are the operands it names
// to run, which are required whatever the platform (stock.PlatformDefaults).
func selectOperands(value string) (run, named []string, err error) {
	items := splitList(value)
	changes := 0
	for _, it := range items {
		if strings.HasPrefix(it, "+") || strings.HasPrefix(it, "-") {
			changes++
		}
	}
	switch {
	case changes == 0:
		return items, items, nil
	case changes < len(items):
		return nil, nil, fmt.Errorf("--operands %q: either the operands to run (a,b,c) or changes of the default ones (+a,-b), not both", value)
	}
	run = stock.Default()
	for _, it := range items {
		name := it[1:]
		if it[0] == '-' {
			run = slices.DeleteFunc(run, func(n string) bool { return n == name })
			continue
		}
		named = append(named, name)
		if !slices.Contains(run, name) {
			run = append(run, name)
		}
	}
	return run, named, nil
}

// applyPlatformDefaults marks the add-ons' operands (perses) as platform
// defaults on every cluster, and the OpenShift-only ones (ssp) on a cluster
// that is not OpenShift (openShift: hco.OpenShift, as the reconciler learnt
// it), unless --operands named them (stock.PlatformDefaults).
func applyPlatformDefaults(reg *hco.Registry, openShift bool, operandList string) error {
	_, named, err := selectOperands(operandList)
	if err != nil {
		return err
	}
	return stock.PlatformDefaults(reg, openShift, named)
}

// clusterSetup returns what the operator and the webhook both start from:
// the registry, a scheme with the stock operands' types, and the cluster.
func clusterSetup(operandList, kubeconfig string) (*hco.Registry, *runtime.Scheme, *rest.Config, error) {
	reg, err := stockRegistry(operandList)
	if err != nil {
		return nil, nil, nil, err
	}
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		return nil, nil, nil, err
	}
	restConfig, err := restConfigFor(kubeconfig)
	if err != nil {
		return nil, nil, nil, err
	}
	// What the operator and the webhook read is small (label-selected operand
	// CRs, lists with limit=1): gzip would cost CPU and pooled buffers
	// (~1 MiB of RSS measured) and save next to nothing.
	restConfig.DisableCompression = true
	return reg, scheme, restConfig, nil
}

// addKubeconfigFlag registers --kubeconfig, kubebuilder's name for it.
func addKubeconfigFlag(fs *flag.FlagSet, into *string) {
	fs.StringVar(into, "kubeconfig", "", "Path of a kubeconfig; default: $KUBECONFIG, then the in-cluster service account, then ~/.kube/config.")
}

// restConfigFor loads the cluster's client configuration: from the
// kubeconfig file given, or else as controller-runtime does (KUBECONFIG,
// in-cluster, ~/.kube/config).
func restConfigFor(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
		}
		return cfg, nil
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster to talk to (set --kubeconfig or KUBECONFIG, or run in a pod): %w", err)
	}
	return cfg, nil
}

// operandImage is an image a stock operand needs (hco.Imager), and which.
type operandImage struct {
	hco.Image
	operand string
}

// operandImages are the images the stock operands need, in registry order:
// each gets a flag and reads its variable.
func operandImages() []operandImage {
	var out []operandImage
	for _, op := range stock.Operands() {
		if im, ok := op.(hco.Imager); ok {
			for _, img := range im.Images() {
				out = append(out, operandImage{Image: img, operand: op.Name()})
			}
		}
	}
	return out
}

// addImageFlags registers the image flags, each defaulting to its
// environment variable and setting one env.Images entry: empty leaves the
// entry out, which disables the operand that needs it.
func addImageFlags(fs *flag.FlagSet, env *hco.Environment, getenv func(string) string) {
	for _, img := range operandImages() {
		set := func(image string) error {
			if env.Images == nil {
				env.Images = map[string]string{}
			}
			if image == "" {
				delete(env.Images, img.Key)
				return nil
			}
			env.Images[img.Key] = image
			return nil
		}
		_ = set(getenv(img.Variable))
		fs.Func(img.Flag, img.Usage+" (env "+img.Variable+").", set)
	}
}

// withoutImage returns the operands of names that will deploy nothing for
// want of their image, and the variable that would give it, in pairs.
func withoutImage(names []string, env hco.Environment) []string {
	var out []string
	for _, img := range operandImages() {
		if slices.Contains(names, img.operand) && env.Images[img.Key] == "" {
			out = append(out, img.operand, img.Variable)
		}
	}
	return out
}

// requireMonitoring leaves the observability operand out when it cannot
// work: without its image (so that its kinds are not even watched; the
// start log names the missing variable), or, as upstream decides at start,
// when the cluster does not serve the Prometheus operator's API (asked
// only when the image is set), saying so.
func requireMonitoring(reg *hco.Registry, env hco.Environment, cfg *rest.Config) error {
	if !slices.ContainsFunc(reg.Operands(), func(op hco.Operand) bool { return op.Name() == observability.Name }) {
		return nil
	}
	if env.Images[observability.ImageKey] == "" {
		return reg.Disable(observability.Name)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	gv := observability.MonitoringKinds[0].GroupVersion()
	list, err := dc.ServerResourcesForGroupVersion(gv.String())
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("discover the Prometheus operator's API %s: %w", gv, err)
	}
	for _, k := range observability.MonitoringKinds {
		if list == nil || !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Kind == k.Kind }) {
			ctrl.Log.Info("observability operand left out: the Prometheus operator's API is not served", "kind", k.String())
			return reg.Disable(observability.Name)
		}
	}
	return nil
}

// clusterClient is a client of the cluster at cfg, straight to the API
// server, that knows the HyperConverged and every stock operand kind: the
// diff and status commands'.
func clusterClient(cfg *rest.Config) (client.Client, error) {
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		return nil, err
	}
	k, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("connect to the cluster: %w", err)
	}
	return k, nil
}
