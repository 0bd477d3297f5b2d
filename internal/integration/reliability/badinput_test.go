package reliability

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
)

// Bad input the API server refuses: the error names the field, and neither
// the HyperConverged nor any operand CR changes.
func TestBadInputRefusedByTheAPIServer(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	startOperator(t, operatorOptions{})
	deleteHCAtEnd(t)
	createHC(t, fullHC)
	testenv.Eventually(t, "converged", func() error { return converged(ctx, 300) })
	before, hcBefore := takeSnapshot(t), getHC(t)

	huge := strings.Repeat("x", 300*1024)
	tests := []struct {
		name, patch string
		strict      bool
		want        []string
	}{
		{"wrong type: string for an integer", `{"spec":{"liveMigrationConfig":{"parallelMigrationsPerCluster":"ten"}}}`, false,
			[]string{"spec.liveMigrationConfig.parallelMigrationsPerCluster", "integer"}},
		{"wrong type: string for a feature gate", `{"spec":{"featureGates":{"withHostPassthroughCPU":"yes"}}}`, false,
			[]string{"spec.featureGates.withHostPassthroughCPU", "boolean"}},
		{"wrong type: object for a list", `{"spec":{"permittedHostDevices":{"pciHostDevices":{"pciVendorSelector":"10DE:1EB8"}}}}`, false,
			[]string{"spec.permittedHostDevices.pciHostDevices", "array"}},
		{"bad quantity", `{"spec":{"liveMigrationConfig":{"bandwidthPerMigration":"64 megabytes"}}}`, false,
			[]string{"spec.liveMigrationConfig.bandwidthPerMigration"}},
		{"out of range", `{"spec":{"liveMigrationConfig":{"progressTimeout":0}}}`, false,
			[]string{"spec.liveMigrationConfig.progressTimeout", "greater than or equal to 1"}},
		{"bad PCI selector", `{"spec":{"permittedHostDevices":{"pciHostDevices":[{"pciVendorSelector":"nvidia","resourceName":"x"}]}}}`, false,
			[]string{"spec.permittedHostDevices.pciHostDevices[0].pciVendorSelector"}},
		{"oversized annotation", fmt.Sprintf(`{"metadata":{"annotations":{"test/huge":%q}}}`, huge), false,
			[]string{"metadata.annotations", "Too long"}},
		{"oversized jsonpatch annotation", fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, v1beta1.KubeVirtJSONPatchAnnotation, `[{"op":"add","path":"/spec/x","value":"`+huge+`"}]`), false,
			[]string{"metadata.annotations", "Too long"}},
		{"unknown field", `{"spec":{"noSuchField":true,"liveMigrationConfig":{"noSuchEither":1}}}`, true,
			[]string{`unknown field "spec.noSuchField"`, `unknown field "spec.liveMigrationConfig.noSuchEither"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []client.PatchOption
			if tc.strict {
				opts = append(opts, client.FieldValidation(metav1.FieldValidationStrict))
			}
			err := k.Patch(ctx, getHC(t), client.RawPatch(types.MergePatchType, []byte(tc.patch)), opts...)
			if err == nil {
				t.Fatal("accepted")
			}
			if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
				t.Errorf("not a validation error: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q: %.300s", w, err.Error())
				}
			}
		})
	}

	// Unknown fields without strict validation are dropped, not stored: the
	// patch stores nothing, so no watch event follows and no reconcile can.
	hc := getHC(t)
	mustOK(t, k.Patch(ctx, hc, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"noSuchField":true}}`))))
	if hc.ResourceVersion != hcBefore.ResourceVersion || !reflect.DeepEqual(hc.Spec, hcBefore.Spec) {
		t.Errorf("the HyperConverged changed: resourceVersion %s -> %s", hcBefore.ResourceVersion, hc.ResourceVersion)
	}
	assertUnchanged(t, before)
}

// Bad input the API server accepts and the operator refuses: each gets
// ReconcileComplete=False/InvalidConfiguration with a message that names the
// annotation and operation (or the field), and no operand CR is written;
// removing it brings the operator back to ReconcileComplete=True.
func TestBadInputRefusedByTheOperator(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	startOperator(t, operatorOptions{})
	deleteHCAtEnd(t)
	createHC(t, fullHC)
	testenv.Eventually(t, "converged", func() error { return converged(ctx, 300) })

	kvAnn, cdiAnn := v1beta1.KubeVirtJSONPatchAnnotation, v1beta1.CDIJSONPatchAnnotation
	valid := `{"op":"add","path":"/spec/configuration/migrations/allowPostCopy","value":true}`
	ops := func(n int, op string) string { return strings.TrimSuffix(strings.Repeat(op+",", n), ",") }
	tests := []struct {
		name       string
		annotation string
		value      string
		// progressTimeout, when set, is changed in the same update: the
		// valid change must not reach KubeVirt either.
		progressTimeout int64
		bandwidth       string
		want            string
	}{
		{name: "malformed jsonpatch", annotation: kvAnn, value: `[{"op": add`,
			want: `annotation "kubevirt.kubevirt.io/jsonpatch": not an RFC 6902 JSON patch`},
		{name: "an object, not a list", annotation: kvAnn, value: `{"op":"add","path":"/spec/x","value":1}`,
			want: `annotation "kubevirt.kubevirt.io/jsonpatch": not an RFC 6902 JSON patch`},
		{name: "path outside /spec", annotation: kvAnn, value: `[` + valid + `,{"op":"add","path":"/metadata/labels/x","value":"y"}]`,
			want: `annotation "kubevirt.kubevirt.io/jsonpatch", operation 1: add "/metadata/labels/x": only paths under /spec may be patched`},
		{name: "status", annotation: cdiAnn, value: `[{"op":"replace","path":"/status","value":{}}]`,
			want: `annotation "containerizeddataimporter.kubevirt.io/jsonpatch", operation 0: replace "/status": only paths under /spec`},
		{name: "move from outside /spec", annotation: kvAnn, value: `[{"op":"move","from":"/metadata/name","path":"/spec/productName"}]`,
			want: `operation 0: move from "/metadata/name": only paths under /spec`},
		{name: "op that does not apply", annotation: kvAnn, value: `[` + valid + `,{"op":"remove","path":"/spec/no/such/path"}]`,
			want: `annotation "kubevirt.kubevirt.io/jsonpatch", operation 1: does not apply to KubeVirt`},
		{name: "failed test op", annotation: kvAnn, value: `[{"op":"test","path":"/spec/productName","value":"other"},` + valid + `]`,
			want: `operation 0: does not apply to KubeVirt`},
		{name: "field the operand API lacks", annotation: kvAnn, value: `[` + valid + `,{"op":"add","path":"/spec/configuration/noSuchField","value":1}]`,
			want: `strict decoding error: unknown field "spec.configuration.noSuchField"`},
		{name: "wrong type in a patch value", annotation: kvAnn, value: `[{"op":"add","path":"/spec/configuration/migrations/allowPostCopy","value":"yes"}]`,
			want: `the patched KubeVirt does not fit its API`},
		{name: "huge op list, last op broken", annotation: kvAnn, value: `[` + ops(2000, valid) + `,{"op":"replace","path":"/spec/nope","value":1}]`,
			want: `operation 2000: does not apply to KubeVirt`},
		{name: "copies that double the document", annotation: kvAnn,
			value: `[` + ops(30, `{"op":"copy","from":"/spec","path":"/spec/a"},{"op":"copy","from":"/spec","path":"/spec/b"}`) + `]`,
			want:  `grows past 1048576 bytes`},
		{name: "broken patch with a valid spec change", annotation: kvAnn, value: `[{"op":"remove","path":"/spec/nope"}]`, progressTimeout: 333,
			want: `annotation "kubevirt.kubevirt.io/jsonpatch", operation 0: does not apply`},
		{name: "negative bandwidth (a valid quantity)", bandwidth: "-64Mi",
			want: `spec.virtualization.liveMigrationConfig.bandwidthPerMigration: "-64Mi" is negative`}, // status names the stored (v1) fields
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := takeSnapshot(t)
			updateHC(t, func(hc *v1beta1.HyperConverged) {
				if tc.annotation != "" {
					hc.Annotations[tc.annotation] = tc.value
				}
				if tc.progressTimeout != 0 {
					hc.Spec.LiveMigrationConfig.ProgressTimeout = ptrTo(tc.progressTimeout)
				}
				if tc.bandwidth != "" {
					hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptrTo(tc.bandwidth)
				}
			})
			testenv.Eventually(t, "ReconcileComplete=False naming the problem", func() error {
				hc := getHC(t)
				if err := checkCondition(hc, v1beta1.ConditionReconcileComplete, metav1.ConditionFalse, hcostatus.ReasonInvalidConfiguration); err != nil {
					return err
				}
				if msg := condition(hc, v1beta1.ConditionReconcileComplete).Message; !strings.Contains(msg, tc.want) {
					return fmt.Errorf("message %.300q does not say %q", msg, tc.want)
				}
				if hc.Status.SystemHealthStatus != v1beta1.SystemHealthError {
					return fmt.Errorf("systemHealthStatus %q", hc.Status.SystemHealthStatus)
				}
				return nil
			})
			assertUnchanged(t, before)

			updateHC(t, func(hc *v1beta1.HyperConverged) {
				delete(hc.Annotations, tc.annotation)
				hc.Spec.LiveMigrationConfig.ProgressTimeout = ptrTo(int64(300))
				hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptrTo("128Mi")
			})
			testenv.Eventually(t, "repaired", func() error {
				if err := checkCondition(getHC(t), v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, ""); err != nil {
					return err
				}
				return converged(ctx, 300)
			})
		})
	}
}

// assertUnchanged fails if any operand CR differs from the snapshot.
func assertUnchanged(t *testing.T, before snapshot) {
	t.Helper()
	after := takeSnapshot(t)
	for key, was := range before {
		if now := after[key]; now != was {
			t.Errorf("%s was written:\nbefore %.400s\nafter  %.400s", key, was, now)
		}
	}
	if len(after) != len(before) {
		t.Errorf("operand CRs: %d before, %d after", len(before), len(after))
	}
}
