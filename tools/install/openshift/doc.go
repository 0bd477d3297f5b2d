// Package openshift installs the whole default kustomization (config/) and
// config/openshift on a test control plane that serves OpenShift's APIs as
// CRDs (ClusterVersion, so the operator sees OpenShift; the console's,
// route, security, config and operator kinds; Perses; the descheduler),
// runs `hco-operator operator` and `hco-operator webhook` as processes under
// their service accounts, and reads the apiserver's audit log: the grants
// that the install on plain Kubernetes (tools/install's TestInstall) cannot
// use because that cluster is not OpenShift must be used here, and none of
// their requests refused.
//
// It has tests only.
package openshift
