// Package descheduler reports, as an hco.Extension, in the metric
// kubevirt_hco_misconfigured_descheduler whether OpenShift's descheduler
// runs a profile that knows KubeVirt (one that evicts a VM's pod by live
// migration), as upstream HCO at 03da3cf does; the alert
// HCOMisconfiguredDescheduler fires on it.
//
// It only reads, and only while the descheduler's API is served (learnt
// from the CRDs the operator's cache holds anyway): a cluster without it
// costs no request. The descheduler is the admin's.
package descheduler
