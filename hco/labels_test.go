package hco_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
)

func TestLabels(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName}}
	assert.Equal(t, map[string]string{
		"app":                          "kubevirt-hyperconverged",
		"app.kubernetes.io/managed-by": "hco-operator",
		"app.kubernetes.io/part-of":    "hyperconverged-cluster",
		"app.kubernetes.io/component":  "compute",
		"app.kubernetes.io/version":    "1.2.3",
	}, hco.Labels(hc, hco.Environment{Version: "1.2.3"}, hco.ComponentCompute))
	assert.NotContains(t, hco.Labels(hc, hco.Environment{}, hco.ComponentCompute), "app.kubernetes.io/version")
}
