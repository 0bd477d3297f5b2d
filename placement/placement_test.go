package placement_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kvv1 "kubevirt.io/api/core/v1"
	sdkapi "kubevirt.io/controller-lifecycle-operator-sdk/api"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
	"github.com/hcokit/hcokit/placement"
)

// The seeds' examples.
var (
	infraSelector     = &hcov1.NodePlacement{NodeSelector: map[string]string{"nodeType": "infra"}}
	workloadsSelector = &hcov1.NodePlacement{NodeSelector: map[string]string{"nodeType": "nested-virtualization"}}

	infraAffinity = &hcov1.NodePlacement{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "nodeType", Operator: corev1.NodeSelectorOpIn, Values: []string{"infra"}}},
		}}},
	}}}
	workloadsAffinity = &hcov1.NodePlacement{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "nodeType", Operator: corev1.NodeSelectorOpIn, Values: []string{"nested-virtualization"}}},
		}}},
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 1,
			Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "cpus", Operator: corev1.NodeSelectorOpGt, Values: []string{"8"}},
			}},
		}},
	}}}

	workloadsTolerations = &hcov1.NodePlacement{Tolerations: []corev1.Toleration{
		{Key: "key", Operator: corev1.TolerationOpEqual, Value: "kubevirt", Effect: corev1.TaintEffectNoSchedule},
	}}
)

func TestSeedExamples(t *testing.T) {
	tests := []struct {
		name             string
		infra, workloads *hcov1.NodePlacement
	}{
		{"node selectors", infraSelector, workloadsSelector},
		{"affinity", infraAffinity, workloadsAffinity},
		{"workload tolerations only", nil, workloadsTolerations},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kvInfra, kvWorkloads := placement.ForKubeVirt(tc.infra, tc.workloads)
			assert.Equal(t, kubevirtWant(tc.infra), kvInfra)
			assert.Equal(t, kubevirtWant(tc.workloads), kvWorkloads)

			cdiInfra, cdiWorkload := placement.ForCDI(tc.infra, tc.workloads)
			assert.Equal(t, sdkWant(tc.infra), cdiInfra.NodePlacement)
			assert.Equal(t, sdkWant(tc.workloads), cdiWorkload)

			// SSP takes infra only.
			if tc.infra == nil {
				assert.Nil(t, placement.ForSSP(tc.infra))
			} else {
				want := sdkWant(tc.infra)
				assert.Equal(t, &want, placement.ForSSP(tc.infra))
			}

			// The HostPathProvisioner takes workloads only.
			assert.Equal(t, hppv1beta1.NodePlacement(sdkWant(tc.workloads)), placement.ForHPP(tc.workloads))

			cnao := placement.ForCNAO(tc.infra, tc.workloads)
			require.NotNil(t, cnao)
			assert.Equal(t, cnaoWant(tc.infra), cnao.Infra)
			assert.Equal(t, cnaoWant(tc.workloads), cnao.Workloads)
		})
	}
}

func TestNothingPlacedGivesOperandDefaults(t *testing.T) {
	for _, none := range []*hcov1.NodePlacement{nil, {}, {NodeSelector: map[string]string{}, Tolerations: []corev1.Toleration{}}} {
		kvInfra, kvWorkloads := placement.ForKubeVirt(none, none)
		assert.Nil(t, kvInfra)
		assert.Nil(t, kvWorkloads)
		assert.Nil(t, placement.ForCNAO(none, none))
		assert.Nil(t, placement.ForSSP(none))
		assert.Equal(t, hppv1beta1.NodePlacement{}, placement.ForHPP(none))
		cdiInfra, cdiWorkload := placement.ForCDI(none, none)
		assert.Equal(t, sdkapi.NodePlacement{}, cdiInfra.NodePlacement)
		assert.Equal(t, sdkapi.NodePlacement{}, cdiWorkload)
	}
	// One class placed, the other empty: only the placed one reaches CNAO.
	cnao := placement.ForCNAO(infraSelector, &hcov1.NodePlacement{})
	require.NotNil(t, cnao)
	assert.NotNil(t, cnao.Infra)
	assert.Nil(t, cnao.Workloads)
}

func TestOutputDoesNotAliasInput(t *testing.T) {
	in := &hcov1.NodePlacement{
		NodeSelector: map[string]string{"a": "b"},
		Affinity:     infraAffinity.Affinity.DeepCopy(),
		Tolerations:  []corev1.Toleration{{Key: "k"}},
	}
	before := in.DeepCopy()
	kv, _ := placement.ForKubeVirt(in, nil)
	kv.NodePlacement.NodeSelector["a"] = "changed"
	kv.NodePlacement.Tolerations[0].Key = "changed"
	kv.NodePlacement.Affinity.NodeAffinity = nil
	cnao := placement.ForCNAO(in, nil)
	cnao.Infra.NodeSelector["x"] = "y"
	hpp := placement.ForHPP(in)
	hpp.Tolerations[0].Key = "changed"
	assert.Equal(t, before, in)
}

func kubevirtWant(p *hcov1.NodePlacement) *kvv1.ComponentConfig {
	if p == nil {
		return nil
	}
	return &kvv1.ComponentConfig{NodePlacement: &kvv1.NodePlacement{NodeSelector: p.NodeSelector, Affinity: p.Affinity, Tolerations: p.Tolerations}}
}

func sdkWant(p *hcov1.NodePlacement) sdkapi.NodePlacement {
	if p == nil {
		return sdkapi.NodePlacement{}
	}
	return sdkapi.NodePlacement{NodeSelector: p.NodeSelector, Affinity: p.Affinity, Tolerations: p.Tolerations}
}

func cnaoWant(p *hcov1.NodePlacement) *cnaov1.Placement {
	if p == nil {
		return nil
	}
	out := &cnaov1.Placement{NodeSelector: p.NodeSelector, Tolerations: p.Tolerations}
	if p.Affinity != nil {
		out.Affinity = *p.Affinity
	}
	return out
}

func FuzzPlacement(f *testing.F) {
	for _, seed := range []*hcov1.NodePlacement{infraSelector, infraAffinity, workloadsAffinity, workloadsTolerations} {
		b, err := json.Marshal(seed)
		require.NoError(f, err)
		f.Add(b, b)
	}
	f.Fuzz(func(t *testing.T, infraJSON, workloadsJSON []byte) {
		var infra, workloads *hcov1.NodePlacement
		if json.Unmarshal(infraJSON, &infra) != nil || json.Unmarshal(workloadsJSON, &workloads) != nil {
			return
		}
		a1, b1 := placement.ForKubeVirt(infra, workloads)
		a2, b2 := placement.ForKubeVirt(infra, workloads)
		if !reflect.DeepEqual(a1, a2) || !reflect.DeepEqual(b1, b2) {
			t.Fatal("ForKubeVirt is not deterministic")
		}
		c1, d1 := placement.ForCDI(infra, workloads)
		c2, d2 := placement.ForCDI(infra, workloads)
		if !reflect.DeepEqual(c1, c2) || !reflect.DeepEqual(d1, d2) {
			t.Fatal("ForCDI is not deterministic")
		}
		if !reflect.DeepEqual(placement.ForCNAO(infra, workloads), placement.ForCNAO(infra, workloads)) {
			t.Fatal("ForCNAO is not deterministic")
		}
		if !reflect.DeepEqual(placement.ForSSP(infra), placement.ForSSP(infra)) ||
			!reflect.DeepEqual(placement.ForHPP(workloads), placement.ForHPP(workloads)) {
			t.Fatal("ForSSP/ForHPP is not deterministic")
		}
	})
}

func BenchmarkForKubeVirt(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		placement.ForKubeVirt(infraAffinity, workloadsAffinity)
	}
}

func BenchmarkAllOperands(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		placement.ForKubeVirt(infraAffinity, workloadsAffinity)
		placement.ForCDI(infraAffinity, workloadsAffinity)
		placement.ForCNAO(infraAffinity, workloadsAffinity)
		placement.ForSSP(infraAffinity)
		placement.ForHPP(workloadsAffinity)
	}
}
