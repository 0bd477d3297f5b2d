package main

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/operands/ssp"
)

const (
	distributionName    = "acme-virt"
	distributionVersion = "2.1.0"
	// templatesNamespace is where Acme keeps the common templates, unless
	// the HyperConverged says otherwise.
	templatesNamespace = "acme-templates"
	// tierLabel marks the objects Acme supports.
	tierLabel = "acme.example.com/support-tier"
	// infoName is the ConfigMap that says which distribution is installed.
	infoName = "acme-virt-info"
	// downloadImage serves virtctl in the cluster (the stock clidownload operand).
	downloadImage = "registry.acme.example/virtctl-download:" + distributionVersion
)

// acmeSSP is the stock SSP operand with Acme's templates namespace and
// support label. Embedding keeps the stock Name, Kinds, Status and jsonpatch
// annotation; only Desired changes.
type acmeSSP struct{ ssp.Operand }

var _ hco.Operand = acmeSSP{}

// Desired builds the stock SSP with Acme's defaults: the templates
// namespace (a HyperConverged that sets one still wins) and the support label.
func (a acmeSSP) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	facts.CommonTemplatesNamespace = templatesNamespace
	cr, err := a.Build(hc, facts)
	if err != nil {
		return nil, err
	}
	cr.Labels[tierLabel] = "premium"
	return []client.Object{cr}, nil
}

// distributionInfo is Acme's own operand: a ConfigMap naming the
// distribution, for support tooling.
type distributionInfo struct{}

var _ hco.Operand = distributionInfo{}

// Name is the operand's registry key.
func (distributionInfo) Name() string { return "distribution-info" }

// Kinds is the one kind Desired returns; the operator caches and watches it.
func (distributionInfo) Kinds() []client.Object {
	return []client.Object{&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}}
}

// Desired is the ConfigMap, in the HyperConverged's namespace.
func (d distributionInfo) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	return []client.Object{&corev1.ConfigMap{
		TypeMeta:   d.Kinds()[0].(*corev1.ConfigMap).TypeMeta,
		ObjectMeta: metav1.ObjectMeta{Name: infoName, Namespace: hc.Namespace, Labels: hco.Labels(hc, facts.Environment, hco.ComponentDeployment)},
		Data:       map[string]string{"distribution": distributionName, "version": facts.Version},
	}}, nil
}

// Status reports the component available once the ConfigMap exists.
func (distributionInfo) Status(observed []client.Object) hcostatus.Component {
	if cm, ok := firstOrNil(observed).(*corev1.ConfigMap); !ok || cm == nil {
		return hcostatus.NotFound("DistributionInfo")
	}
	return hcostatus.FromConditions("DistributionInfo", []hcostatus.OperandCondition{
		{Type: "Available", Status: "True"}, {Type: "Progressing", Status: "False"}, {Type: "Degraded", Status: "False"},
	}, "")
}

func firstOrNil(objs []client.Object) client.Object {
	if len(objs) == 0 {
		return nil
	}
	return objs[0]
}
