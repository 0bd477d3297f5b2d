// Package v1alpha1 is a typed mirror of the application-aware-quota
// operator's AAQ API (aaq.kubevirt.io/v1alpha1, module
// kubevirt.io/application-aware-quota v1.8.0, package
// staging/src/kubevirt.io/application-aware-quota-api/pkg/apis/core/v1alpha1):
// every field of the AAQ kind, with upstream's JSON names and validation
// markers. The quota kinds of the same group are not mirrored.
//
// It exists because that module cannot be required from the root module
// without harm: it requires k8s.io/client-go v12.0.0+incompatible (which
// minimal version selection would pick over v0.37) and k8s.io/kubernetes,
// and needs replace directives for both. tools/upstreamapis requires the
// real module, tests that every field here exists upstream with the same
// JSON name and shape, and generates the real CRD from it. This package
// holds types only.
//
// +kubebuilder:object:generate=true
// +groupName=aaq.kubevirt.io
package v1alpha1
