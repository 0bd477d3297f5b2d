// Package openshift tests the operator on a control plane that is OpenShift
// to it: one that serves OpenShift's ClusterVersion, Ingress and APIServer
// configuration kinds, as CRDs from github.com/openshift/api at the version
// go.mod pins (internal/integration/testdata/openshift and
// openshift-platform), and the Perses operator's kinds, as CRDs from
// rhobs/perses-operator at upstream HCO's pin (testdata/perses). The
// plain-Kubernetes packages run without them.
package openshift
