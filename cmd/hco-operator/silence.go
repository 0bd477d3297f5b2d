package main

import (
	"flag"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/hcokit/hcokit/alertsilence"
)

// On OpenShift, the platform's Alertmanager is asked through its
// authorizing proxy, which lets the operator's account in with get (list
// the silences) and create (make one) on alertmanagers/api "main" in
// openshift-monitoring. hack/generate.sh puts this Role, in a namespace only
// OpenShift has, into config/openshift/role.yaml; the OLM bundle, which
// cannot grant a Role in another namespace, grants it by name in its
// clusterPermissions (config/overlays/olm).
// +kubebuilder:rbac:groups=monitoring.coreos.com,namespace=openshift-monitoring,resources=alertmanagers/api,resourceNames=main,verbs=get;create

// silenceFlags are where the operator keeps upstream's silence of
// PodDisruptionBudgetAtLimit (package alertsilence).
type silenceFlags struct {
	url, caFile string
}

func addSilenceFlags(fs *flag.FlagSet, s *silenceFlags) {
	fs.StringVar(&s.url, "alertmanager-url", alertsilence.OpenShiftURL,
		"On OpenShift, the Alertmanager API in which the operator keeps upstream's silence of PodDisruptionBudgetAtLimit for KubeVirt's VM disruption budgets (checked at start and hourly); empty keeps none.")
	fs.StringVar(&s.caFile, "alertmanager-ca-file", alertsilence.ServiceCAFile,
		"Certificates that sign the Alertmanager's serving certificate (default: OpenShift's service CA beside the service account token); empty trusts the system's roots.")
}

// silenceKeeper returns the Keeper of upstream's silence on OpenShift, with
// the operator's token from cfg; nil elsewhere or with no URL.
func silenceKeeper(s silenceFlags, openShift bool, cfg *rest.Config) *alertsilence.Keeper {
	if !openShift || s.url == "" {
		return nil
	}
	return &alertsilence.Keeper{URL: s.url, CAFile: s.caFile, Token: cfg.BearerToken, TokenFile: cfg.BearerTokenFile,
		Silences: []alertsilence.Silence{alertsilence.PodDisruptionBudgetAtLimit()}, Log: ctrl.Log.WithName("alertsilence")}
}
