// Package install renders and tests the install manifests in config/ (see
// docs/install.md).
//
// Render builds a kustomization with the kustomize Go library (what
// `kubectl apply -k` runs), optionally in another namespace, as
// `kustomize edit set namespace` would set it. The tests of this package
// check the rendered manifests (namespace portability, no wildcards, the
// version), and install the whole default kustomization on a test control
// plane (internal/testenv) with `hco-operator operator` and
// `hco-operator webhook` running as processes under their service accounts,
// so that a missing permission fails and an unused one is found in the
// apiserver's audit log. Package openshift does the same install, with
// config/overlays/openshift, on a control plane serving OpenShift's APIs, where the
// grants needed on OpenShift only must be used; internal/installtest holds
// what both tests share.
//
// Chart makes the Helm chart (charts/hcokit; cmd/chart, make chart) from
// the same kustomizations, each choice of the chart one of them;
// tools/chart tests it with Helm's library.
//
// This package is for tests and tools only; nothing in the library imports it.
package install
