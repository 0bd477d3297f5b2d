package webhook

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// mutated runs storeAsUpstream on spec (JSON, v1) with old's spec (nil: a
// CREATE) and status, and returns the stored spec, the warnings and the
// refusal.
func mutated(t *testing.T, spec, oldSpec, status string, fromV1beta1 bool) (map[string]any, []string, string) {
	t.Helper()
	raw := `{"apiVersion":"hco.kubevirt.io/v1","kind":"HyperConverged","metadata":{"name":"kubevirt-hyperconverged"},"spec":` + spec + `,"status":` + status + `}`
	obj := &unstructured.Unstructured{}
	require.NoError(t, obj.UnmarshalJSON([]byte(raw)))
	hc := &hcov1.HyperConverged{}
	require.NoError(t, json.Unmarshal([]byte(raw), hc))
	var old *hcov1.HyperConverged
	if oldSpec != "" {
		old = &hcov1.HyperConverged{}
		require.NoError(t, json.Unmarshal([]byte(`{"spec":`+oldSpec+`}`), old))
	}
	warnings, refusal := storeAsUpstream(obj.Object, hc, old, fromV1beta1)
	stored, _, _ := unstructured.NestedMap(obj.Object, "spec")
	return stored, warnings, refusal
}

func specJSON(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

// Upstream's mutating webhook at 03da3cf (pkg/webhooks/mutator), case by case.
func TestStoreAsUpstream(t *testing.T) {
	tests := []struct {
		name              string
		spec, old, status string
		fromV1beta1       bool
		want              string
		warnings          []string
		refusal           string
	}{
		{name: "create: KSM configuration stored empty", spec: `{}`, status: `{}`,
			want: `{"virtualization":{"ksmConfiguration":{}}}`},
		{name: "update: nothing", spec: `{}`, old: `{}`, status: `{}`, want: `{}`},
		{name: "eviction strategy from the infrastructure's availability", spec: `{}`, old: `{}`, status: `{"infrastructureHighlyAvailable":true}`,
			want: `{"virtualization":{"evictionStrategy":"LiveMigrate"}}`},
		{name: "eviction strategy set is kept", spec: `{"virtualization":{"evictionStrategy":"External"}}`, old: `{}`, status: `{"infrastructureHighlyAvailable":false}`,
			want: `{"virtualization":{"evictionStrategy":"External"}}`},
		{name: "golden images: immediate binding, retention and imports", old: `{}`, status: `{}`,
			spec: `{"workloadSources":{"dataImportCronTemplates":[{"metadata":{"name":"a"},"spec":{"schedule":"1 * * * *"}},{"metadata":{"name":"b","annotations":{"x":"y"}}}]}}`,
			want: `{"workloadSources":{"dataImportCronTemplates":[` +
				`{"metadata":{"annotations":{"cdi.kubevirt.io/storage.bind.immediate.requested":"true"},"name":"a"},"spec":{"importsToKeep":1,"retentionPolicy":"None","schedule":"1 * * * *"}},` +
				`{"metadata":{"annotations":{"cdi.kubevirt.io/storage.bind.immediate.requested":"true","x":"y"},"name":"b"}}]}}`},
		{name: "highBurst removed", spec: `{"virtualization":{"tuningPolicy":"highBurst"}}`, old: `{}`, status: `{}`,
			want: `{"virtualization":{}}`, warnings: []string{"spec.virtualization.tuningPolicy: the highBurst profile is not supported and ignored"}},
		{name: "create: a deprecated gate moves into its field", status: `{}`,
			spec:     `{"featureGates":[{"name":"persistentReservation"}],"virtualization":{"ksmConfiguration":{}}}`,
			want:     `{"featureGates":[{"name":"persistentReservation"}],"storage":{"persistentReservationConfiguration":{"enabled":true}},"virtualization":{"ksmConfiguration":{}}}`,
			warnings: []string{"feature gate persistentReservation is deprecated; please use the spec.storage.persistentReservationConfiguration.enabled field instead"}},
		{name: "create: disableMDevConfiguration is the field's opposite", status: `{}`,
			spec:     `{"featureGates":[{"name":"disableMDevConfiguration"}],"virtualization":{"ksmConfiguration":{}}}`,
			want:     `{"featureGates":[{"name":"disableMDevConfiguration"}],"virtualization":{"ksmConfiguration":{},"mediatedDevicesConfiguration":{"enabled":false}}}`,
			warnings: []string{"feature gate disableMDevConfiguration is deprecated; please use the spec.virtualization.mediatedDevicesConfiguration.enabled field instead"}},
		{name: "create: a gate and its field disagreeing is refused", status: `{}`,
			spec:    `{"featureGates":[{"name":"enableMultiArchBootImageImport"}],"workloadSources":{"enableMultiArchBootImageImport":false}}`,
			refusal: "the deprecated enableMultiArchBootImageImport feature gate, and spec.workloadSources.enableMultiArchBootImageImport field contradict each other; the feature gate must not be set, or should be equal to the field"},
		{name: "update: the field changed, the gate not: the gate goes", status: `{}`,
			old:  `{"featureGates":[{"name":"persistentReservation"}],"storage":{"persistentReservationConfiguration":{"enabled":true}}}`,
			spec: `{"featureGates":[{"name":"persistentReservation"}],"storage":{"persistentReservationConfiguration":{"enabled":false}}}`,
			want: `{"storage":{"persistentReservationConfiguration":{"enabled":false}}}`},
		{name: "update: the gate changed, the field not: the field follows", status: `{}`,
			old:      `{"featureGates":[{"name":"persistentReservation","state":"Disabled"}],"storage":{"persistentReservationConfiguration":{"enabled":false}}}`,
			spec:     `{"featureGates":[{"name":"persistentReservation"}],"storage":{"persistentReservationConfiguration":{"enabled":false}}}`,
			want:     `{"featureGates":[{"name":"persistentReservation"}],"storage":{"persistentReservationConfiguration":{"enabled":true}}}`,
			warnings: []string{"feature gate persistentReservation is deprecated; please use the spec.storage.persistentReservationConfiguration.enabled field instead"}},
		{name: "update: both changed, disagreeing: refused", status: `{}`,
			old:     `{}`,
			spec:    `{"featureGates":[{"name":"persistentReservation"}],"storage":{"persistentReservationConfiguration":{"enabled":false}}}`,
			refusal: "the deprecated persistentReservation feature gate, and spec.storage.persistentReservationConfiguration.enabled field contradict each other; the feature gate must not be set, or should be equal to the field"},
		{name: "v1beta1: gates stay as they are, highBurst too", fromV1beta1: true, old: `{}`, status: `{}`,
			spec: `{"featureGates":[{"name":"persistentReservation","state":"Disabled"}],"virtualization":{"tuningPolicy":"highBurst"}}`,
			want: `{"featureGates":[{"name":"persistentReservation","state":"Disabled"}],"virtualization":{"tuningPolicy":"highBurst"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stored, warnings, refusal := mutated(t, tc.spec, tc.old, tc.status, tc.fromV1beta1)
			assert.Equal(t, tc.refusal, refusal)
			if tc.refusal != "" {
				return
			}
			assert.JSONEq(t, tc.want, specJSON(t, stored))
			assert.Equal(t, tc.warnings, warnings)
		})
	}
}

// What upstream's operator writes with its first update: the common golden
// images on, and each gate's state, where unset; a value set is kept.
func TestOperatorDefaults(t *testing.T) {
	tests := map[string]struct{ spec, want string }{
		"nothing set": {`{}`, `{"workloadSources":{"enableCommonBootImageImport":true}}`},
		"set values kept": {`{"featureGates":[{"name":"a","state":"Disabled"},{"name":"b"}],"workloadSources":{"enableCommonBootImageImport":false}}`,
			`{"featureGates":[{"name":"a","state":"Disabled"},{"name":"b","state":"Enabled"}],"workloadSources":{"enableCommonBootImageImport":false}}`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			obj := map[string]any{}
			require.NoError(t, json.Unmarshal([]byte(`{"spec":`+tt.spec+`}`), &obj))
			operatorDefaults(obj)
			got, err := json.Marshal(obj["spec"])
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}
