// Package alertsilence keeps silences in an Alertmanager, through its API
// v2: upstream HCO's silence of OpenShift's PodDisruptionBudgetAtLimit alert
// for KubeVirt's VM disruption budgets (PodDisruptionBudgetAtLimit), which
// a Keeper checks when the operator starts and every hour after, and makes
// again when it is missing (expired, or never made), as upstream's
// observability controller does at 03da3cf. It finds a silence upstream's
// operator made (same matchers), so a switch in place adds none.
//
// The stock binary runs a Keeper on OpenShift, against the platform's
// Alertmanager (OpenShiftURL) with the service CA (ServiceCAFile) and the
// operator's service account token; the platform's proxy in front of the
// Alertmanager lets the account in with get and create on
// monitoring.coreos.com alertmanagers/api "main" in openshift-monitoring,
// which config/openshift grants (a Role there) and the OLM bundle
// (clusterPermissions, by name). Upstream grants more: every verb on
// alertmanagers and alertmanagers/api cluster-wide.
//
// The client is this package's own, two requests of the API's JSON:
// Alertmanager's generated client would link go-openapi and its formats
// into the operator for them.
package alertsilence
