package upgrade

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/blang/semver/v4"
	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// What upgrading from an earlier upstream HCO version changes: upstream's
// assets/upgradePatches.json at commit 03da3cf, applied once, when the
// operator starts reconciling a HyperConverged whose status.versions
// records that earlier version (see Extension.adopt).

// specPatch is a JSON patch of the HyperConverged applied when upgrading
// from a version in from (a semver range); a failing "test" skips it.
type specPatch struct {
	from  string
	patch string
}

// specPatches is upstream's hcoCRPatchList, with the seed's value: upstream
// moves completionTimeoutPerGiB from its old default, 150, to its new one,
// 20; hcokit's default is the seed's 800 (seed 003), so the old default
// becomes that.
var specPatches = []specPatch{{
	from: "<1.19.0",
	patch: fmt.Sprintf(`[{"op":"test","path":"/spec/virtualization/liveMigrationConfig/completionTimeoutPerGiB","value":150},
		{"op":"replace","path":"/spec/virtualization/liveMigrationConfig/completionTimeoutPerGiB","value":%d}]`, hcov1.DefaultCompletionTimeoutPerGiB),
}}

// leftover is an object an earlier upstream version made that a later one
// no longer does: upstream's objectsToBeRemoved. An empty namespace of a
// namespaced kind is the operator namespace ("kubevirt-hyperconverged" in
// upstream's file).
type leftover struct {
	from string
	gvk  schema.GroupVersionKind
	key  types.NamespacedName
}

var (
	daemonSet      = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}
	serviceAccount = schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"}
	nad            = schema.GroupVersionKind{Group: "k8s.cni.cncf.io", Version: "v1", Kind: "NetworkAttachmentDefinition"}
	scc            = schema.GroupVersionKind{Group: "security.openshift.io", Version: "v1", Kind: "SecurityContextConstraints"}
)

// leftovers is upstream's objectsToBeRemoved: the passt binding's CNI
// objects (made by 1.16 to 1.18) and the iommufd device plugin's (1.18).
var leftovers = []leftover{
	{from: ">=1.16.0 <1.19.0", gvk: daemonSet, key: types.NamespacedName{Name: "passt-binding-cni"}},
	{from: ">=1.16.0 <1.19.0", gvk: nad, key: types.NamespacedName{Namespace: "default", Name: "primary-udn-kubevirt-binding"}},
	{from: ">=1.16.0 <1.19.0", gvk: serviceAccount, key: types.NamespacedName{Name: "passt-binding-cni"}},
	{from: ">=1.16.0 <1.19.0", gvk: scc, key: types.NamespacedName{Name: "passt-binding-cni"}},
	{from: ">=1.18.0 <1.19.0", gvk: daemonSet, key: types.NamespacedName{Name: "iommufd-device-plugin"}},
	{from: ">=1.18.0 <1.19.0", gvk: serviceAccount, key: types.NamespacedName{Name: "iommufd-device-plugin"}},
	{from: ">=1.18.0 <1.19.0", gvk: scc, key: types.NamespacedName{Name: "iommufd-device-plugin"}},
}

// switchLeftovers are what upstream's operator makes, at any version, that
// hcokit makes differently and that would fight with it if they stayed: on
// plain Kubernetes upstream's network-resources-injector gets its serving
// certificate from cert-manager (an Issuer and a Certificate writing the
// Secret virt-network-resources-injector-secret), which hcokit's webhook
// writes itself (`hco-operator webhook --manage-certs`, a CA of its own);
// with both, cert-manager and the rotator would overwrite each other's
// certificate. Looked for once per operator start (Extension.switchFrom),
// each only where its CRD exists, in the operator namespace.
var switchLeftovers = []struct {
	crd string
	leftover
}{
	{"issuers.cert-manager.io", leftover{gvk: schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Issuer"}, key: types.NamespacedName{Name: "selfsigned"}}},
	{"certificates.cert-manager.io", leftover{gvk: schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}, key: types.NamespacedName{Name: "virt-network-resources-injector-cert"}}},
}

// namespacedLeftover says which leftover kinds are namespaced.
func namespacedLeftover(gvk schema.GroupVersionKind) bool { return gvk != scc }

// upgradeSteps returns what upgrading from the version known (as
// status.versions records it; semver, a leading "v" allowed) changes: the
// spec patches to apply and the leftovers to delete, namespaced ones in
// namespace. A version that is not semver (an hcokit build such as
// "0.1.0-3-gabc") is parsed tolerantly; one that does not parse at all
// changes nothing.
func upgradeSteps(known, namespace string) ([]jsonpatch.Patch, []leftover) {
	v, err := semver.ParseTolerant(known)
	if err != nil {
		return nil, nil
	}
	var patches []jsonpatch.Patch
	for _, p := range specPatches {
		if inRange(p.from, v) {
			patches = append(patches, mustDecode(p.patch))
		}
	}
	var out []leftover
	for _, l := range leftovers {
		if !inRange(l.from, v) {
			continue
		}
		if namespacedLeftover(l.gvk) && l.key.Namespace == "" {
			l.key.Namespace = namespace
		}
		out = append(out, l)
	}
	return patches, out
}

func inRange(r string, v semver.Version) bool {
	return semver.MustParseRange(r)(v)
}

func mustDecode(p string) jsonpatch.Patch {
	patch, err := jsonpatch.DecodePatch([]byte(p))
	if err != nil {
		panic(fmt.Sprintf("upgrade: patch %s: %v", p, err))
	}
	return patch
}

// patchSpec applies patches to hc's spec (in place) and reports whether it
// changed; a patch whose "test" fails is skipped, as upstream skips it.
func patchSpec(hc *hcov1.HyperConverged, patches []jsonpatch.Patch) (bool, error) {
	if len(patches) == 0 {
		return false, nil
	}
	doc, err := json.Marshal(map[string]any{"spec": hc.Spec})
	if err != nil {
		return false, err
	}
	orig := doc
	for _, p := range patches {
		next, err := p.Apply(doc)
		switch {
		case errors.Is(err, jsonpatch.ErrTestFailed):
			continue
		case err != nil:
			return false, fmt.Errorf("upgrade patch %v: %w", p, err)
		}
		doc = next
	}
	if string(doc) == string(orig) {
		return false, nil
	}
	var patched struct {
		Spec hcov1.HyperConvergedSpec `json:"spec"`
	}
	if err := json.Unmarshal(doc, &patched); err != nil {
		return false, err
	}
	hc.Spec = patched.Spec
	return true, nil
}
