// Package netresinjector is the operand module for the
// network-resources-injector, the mutating webhook that adds the resource
// requests of the Multus networks a virt-launcher pod names (upstream HCO's
// controllers/handlers/netresinjector at 03da3cf). For a HyperConverged whose
// spec.deployment.deployNetworkResourcesInjector is true (the default, as
// upstream's ShouldDeployNetworkResourcesInjector) it builds, in upstream's
// order: the ClusterRole and its ClusterRoleBinding, the ServiceAccount, the
// Service, the Deployment (two replicas when the infrastructure is highly
// available, the cluster's TLS profile as arguments), the
// PodDisruptionBudget and the MutatingWebhookConfiguration, with upstream's
// names and content. Turned off, it wants nothing and the operator removes
// them. Without an image (Environment.Images[ImageKey], the stock binary's
// NETWORK_RESOURCES_INJECTOR_IMAGE) it wants nothing either; the stock
// binary says so in a log line at start.
//
// # The serving certificate
//
// On OpenShift, as upstream, the platform's service CA issues it: the
// Service names SecretName in service.beta.openshift.io/serving-cert-secret-name
// and the MutatingWebhookConfiguration carries
// service.beta.openshift.io/inject-cabundle (UseServiceCA); the OpenShift
// install ships no such Secret and its rotator leaves it alone. Elsewhere
// upstream makes a cert-manager Certificate; hcokit needs none. The
// certificate is the same self-managed machinery as the hcokit webhook's: the install
// manifests (config/certs) create the Secret SecretName empty, and
// `hco-operator webhook --manage-certs` runs a second cert-controller rotator
// that fills it with a CA and a serving certificate for
// <ServiceName>.<namespace>.svc, renews them, and writes the CA into the
// caBundle of the MutatingWebhookConfiguration WebhookConfigName. The
// operand does not build the Secret (the rotator needs it to exist before
// any HyperConverged does, so it belongs to the install, like the
// webhook's own), so this module has nothing to do with the certificate but
// to mount the Secret and to leave the caBundle alone: it is an
// hco.ContentKeeper naming webhooks[*].clientConfig.caBundle, which the
// operator then keeps as found instead of reverting it, as upstream's
// preserveExistingCABundles does. Upstream's cert-manager annotation
// (cert-manager.io/inject-ca-from) is not set: no Certificate backs it.
//
// The ServiceAccount's secrets and imagePullSecrets are kept likewise: on
// OpenShift a controller adds a pull secret to every ServiceAccount.
//
// # Status
//
// As upstream, the Deployment's readiness is a condition of its own on the
// HyperConverged, VirtNetworkResourcesInjectorReady (True when every
// replica is ready; upstream's reasons and messages), present while the
// injector is deployed and not part of the aggregated conditions. The
// KubeVirt operand turns on the ExternalNetResourceInjection gate while the
// Deployment is ready (featuregates.Options), as upstream does from that
// condition; it reads the Deployment from the facts (Ready: the operator's
// cache), not the condition back from the status, so the reconcile that
// sees the Deployment ready updates KubeVirt too.
//
// It only computes; it must not call the API server or read the environment.
package netresinjector
