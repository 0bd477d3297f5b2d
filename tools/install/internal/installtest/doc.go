// Package installtest is what the install tests of this module share: the
// stock binary built and run as a process under a service account's token
// (as the Deployment's pod would run it), the rendered manifests applied as
// kubectl apply --server-side would, a Secret projected as the kubelet
// would, and the apiserver's audit log read back as requests and compared
// with the grants of the shipped RBAC.
//
// It is for the tests of tools/install only: it calls testing.T and fails
// the test on every error, and nothing else imports it.
package installtest
