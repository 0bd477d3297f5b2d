package consoleplugin

import (
	"maps"

	consolev1 "github.com/openshift/api/console/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/wireform"
)

// Name is the operand's registry name.
const Name = "consoleplugin"

// The Environment.Images keys of the plugin's and the proxy's images.
// Without both the operand wants nothing, as upstream.
const (
	PluginImageKey = "kubevirt-console-plugin"
	ProxyImageKey  = "kubevirt-apiserver-proxy"
)

// Upstream's names (kubevirtConsolePlugin.go at 03da3cf).
const (
	// PluginName is the ConsolePlugin's name, which the Console operator
	// configuration's spec.plugins lists to enable it.
	PluginName = "kubevirt-plugin"
	// PluginComponent is the plugin's component label, and the name of its
	// Deployment and ServiceAccount.
	PluginComponent = "kubevirt-console-plugin"
	// ProxyComponent is the proxy's component label, the name of its
	// Deployment and ServiceAccount, and its alias in the ConsolePlugin.
	ProxyComponent = "kubevirt-apiserver-proxy"
	// ConfigComponent is the component label of the UI's ConfigMaps.
	ConfigComponent = "kubevirt-ui-config"

	PluginService          = PluginComponent + "-service"
	ProxyService           = ProxyComponent + "-service"
	PluginServingCert      = "plugin-serving-cert"
	ProxyServingCert       = "console-proxy-serving-cert"
	NginxConfigMap         = "nginx-conf"
	UserSettingsConfigMap  = "kubevirt-user-settings"
	FeaturesConfigMap      = "kubevirt-ui-features"
	ConfigReaderRole       = "kubevirt-ui-config-reader"
	ConfigReaderRoleBindng = "kubevirt-ui-config-reader-rolebinding"
	PluginNetworkPolicy    = "kubevirt-console-plugin-np"
	ProxyNetworkPolicy     = "kubevirt-apiserver-proxy-np"

	// PluginPort and ProxyPort are the ports the plugin's nginx and the
	// proxy serve on, and their Services expose.
	PluginPort int32 = 9443
	ProxyPort  int32 = 8080

	pluginCertPath = "/var/serving-cert"
	proxyCertPath  = "/app/cert"
	// servingCertAnnotation asks OpenShift's service CA for a serving
	// certificate of the Service, in the Secret it names.
	servingCertAnnotation = "service.beta.openshift.io/serving-cert-secret-name"
	// requiredSCCAnnotation pins the pods' SecurityContextConstraints.
	requiredSCCAnnotation = "openshift.io/required-scc"
	// priorityClass is the pods' PriorityClass (operands/priorityclass).
	priorityClass = "kubevirt-cluster-critical"
)

// The keys of the features ConfigMap the operator sets whatever an admin
// wrote there (upstream's managed keys).
const (
	IPStackTypeKey = "ipStackType"
	VersionKey     = "hcoVersion"
)

// Operand builds the console plugin, its proxy and their configuration.
type Operand struct{}

var (
	_ hco.OpenShiftOnly = Operand{}
	_ hco.Operand       = Operand{}
	_ hco.SchemeAdder   = Operand{}
	_ hco.Imager        = Operand{}
	_ hco.ContentKeeper = Operand{}
	_ hco.ListMember    = Operand{}
)

// New returns the console-plugin operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// OpenShiftOnly implements hco.OpenShiftOnly: upstream deploys it on
// OpenShift only.
func (Operand) OpenShiftOnly() bool { return true }

var (
	deploymentType    = metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment"}
	serviceType       = metav1.TypeMeta{APIVersion: corev1.SchemeGroupVersion.String(), Kind: "Service"}
	serviceAcountType = metav1.TypeMeta{APIVersion: corev1.SchemeGroupVersion.String(), Kind: "ServiceAccount"}
	configMapType     = metav1.TypeMeta{APIVersion: corev1.SchemeGroupVersion.String(), Kind: "ConfigMap"}
	roleType          = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"}
	roleBindingType   = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"}
	networkPolicyType = metav1.TypeMeta{APIVersion: networkingv1.SchemeGroupVersion.String(), Kind: "NetworkPolicy"}
	consolePluginType = metav1.TypeMeta{APIVersion: consolev1.GroupVersion.String(), Kind: "ConsolePlugin"}
)

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{
		&corev1.ServiceAccount{TypeMeta: serviceAcountType},
		&corev1.Service{TypeMeta: serviceType},
		&appsv1.Deployment{TypeMeta: deploymentType},
		&corev1.ConfigMap{TypeMeta: configMapType},
		&rbacv1.Role{TypeMeta: roleType},
		&rbacv1.RoleBinding{TypeMeta: roleBindingType},
		&networkingv1.NetworkPolicy{TypeMeta: networkPolicyType},
		&consolev1.ConsolePlugin{TypeMeta: consolePluginType},
	}
}

// images returns the plugin's and the proxy's images, false unless both
// are given.
func images(env hco.Environment) (plugin, proxy string, ok bool) {
	plugin, proxy = env.Images[PluginImageKey], env.Images[ProxyImageKey]
	return plugin, proxy, plugin != "" && proxy != ""
}

// Desired implements hco.Operand: on OpenShift with both images, the
// plugin's and the proxy's objects, in upstream's order; nothing otherwise.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	pluginImage, proxyImage, ok := images(facts.Environment)
	if !ok || !facts.Platform.OpenShift {
		return nil, nil
	}
	env := facts.Environment
	proxy, err := BuildProxyDeployment(hc, facts, proxyImage)
	if err != nil {
		return nil, err
	}
	nginx, err := BuildNginxConfigMap(hc, facts)
	if err != nil {
		return nil, err
	}
	return []client.Object{
		BuildService(hc, env, PluginService, PluginComponent, PluginServingCert, PluginPort),
		BuildService(hc, env, ProxyService, ProxyComponent, ProxyServingCert, ProxyPort),
		buildServiceAccount(hc, env, PluginComponent),
		buildServiceAccount(hc, env, ProxyComponent),
		BuildPluginDeployment(hc, facts, pluginImage),
		proxy,
		BuildUserSettingsConfigMap(hc, env),
		BuildFeaturesConfigMap(hc, facts),
		BuildConsolePlugin(hc, env),
		nginx,
		BuildConfigReaderRole(hc, env),
		BuildConfigReaderRoleBinding(hc, env),
		BuildPluginNetworkPolicy(hc, env),
		BuildProxyNetworkPolicy(hc, facts),
	}, nil
}

func buildServiceAccount(hc *hcov1.HyperConverged, env hco.Environment, component string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   serviceAcountType,
		ObjectMeta: metav1.ObjectMeta{Name: component, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, component)},
	}
}

// BuildConsolePlugin returns the ConsolePlugin that registers the plugin,
// served by its Service, with the proxy behind the alias ProxyComponent
// (the user's token passed on).
func BuildConsolePlugin(hc *hcov1.HyperConverged, env hco.Environment) *consolev1.ConsolePlugin {
	return &consolev1.ConsolePlugin{
		TypeMeta:   consolePluginType,
		ObjectMeta: metav1.ObjectMeta{Name: PluginName, Labels: hco.Labels(hc, env, PluginComponent)},
		Spec: consolev1.ConsolePluginSpec{
			DisplayName: "Kubevirt Console Plugin",
			Backend: consolev1.ConsolePluginBackend{
				Type: consolev1.Service,
				Service: &consolev1.ConsolePluginService{
					Name: PluginService, Namespace: hc.Namespace, Port: PluginPort, BasePath: "/",
				},
			},
			Proxy: []consolev1.ConsolePluginProxy{{
				Alias:         ProxyComponent,
				Authorization: consolev1.UserToken,
				Endpoint: consolev1.ConsolePluginProxyEndpoint{
					Type:    consolev1.ProxyTypeService,
					Service: &consolev1.ConsolePluginProxyServiceConfig{Name: ProxyService, Namespace: hc.Namespace, Port: ProxyPort},
				},
			}},
		},
	}
}

// BuildUserSettingsConfigMap returns the UI's user-settings ConfigMap,
// empty: the UI writes there (KeptFields keeps it).
func BuildUserSettingsConfigMap(hc *hcov1.HyperConverged, env hco.Environment) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   configMapType,
		ObjectMeta: metav1.ObjectMeta{Name: UserSettingsConfigMap, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, ConfigComponent)},
		Data:       map[string]string{},
	}
}

// Features are the UI features ConfigMap's seeded keys, upstream's
// defaults; an admin's edits of them are kept. IPStackTypeKey and
// VersionKey are set besides.
func Features() map[string]string {
	return map[string]string{
		"automaticSubscriptionActivationKey":  "",
		"automaticSubscriptionOrganizationId": "",
		"disabledGuestSystemLogsAccess":       "false",
		"kubevirtApiserverProxy":              "true",
		"loadBalancerEnabled":                 "true",
		"nodePortAddress":                     "",
		"nodePortEnabled":                     "false",
	}
}

// BuildFeaturesConfigMap returns the UI features ConfigMap: Features, the
// cluster's IP stack (upstream's IPv4SingleStack when unknown) and the
// operator's version.
func BuildFeaturesConfigMap(hc *hcov1.HyperConverged, facts hco.Facts) *corev1.ConfigMap {
	data := Features()
	stack := facts.Platform.IPStack
	if stack == "" {
		stack = hco.IPv4SingleStack
	}
	data[IPStackTypeKey] = stack
	data[VersionKey] = facts.Environment.Version
	return &corev1.ConfigMap{
		TypeMeta:   configMapType,
		ObjectMeta: metav1.ObjectMeta{Name: FeaturesConfigMap, Namespace: hc.Namespace, Labels: hco.Labels(hc, facts.Environment, ConfigComponent)},
		Data:       data,
	}
}

// BuildConfigReaderRole returns the Role that lets its subjects read and
// edit the user settings and read the features.
func BuildConfigReaderRole(hc *hcov1.HyperConverged, env hco.Environment) *rbacv1.Role {
	return &rbacv1.Role{
		TypeMeta:   roleType,
		ObjectMeta: metav1.ObjectMeta{Name: ConfigReaderRole, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, PluginComponent)},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{UserSettingsConfigMap}, Verbs: []string{"get", "update", "patch"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{FeaturesConfigMap}, Verbs: []string{"get"}},
		},
	}
}

// BuildConfigReaderRoleBinding grants BuildConfigReaderRole to every
// authenticated user: the console runs the plugin as the user.
func BuildConfigReaderRoleBinding(hc *hcov1.HyperConverged, env hco.Environment) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   roleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: ConfigReaderRoleBindng, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, PluginComponent)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ConfigReaderRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:authenticated"}},
	}
}

// Status implements hco.Operand: available once both Deployments exist, as
// upstream counts them (its generic Deployment handler reports no
// condition).
func (Operand) Status(observed []client.Object) hcostatus.Component {
	found := 0
	for _, o := range observed {
		if d, ok := o.(*appsv1.Deployment); ok && d != nil && (d.Name == PluginComponent || d.Name == ProxyComponent) {
			found++
		}
	}
	if found < 2 {
		return hcostatus.NotFound("ConsolePlugin")
	}
	return hcostatus.Found("ConsolePlugin")
}

// KeptFields implements hco.ContentKeeper: the user settings as the UI
// wrote them; the features as an admin edited them, but for the IP stack
// and the version; the pull secrets a platform adds to a ServiceAccount.
func (Operand) KeptFields(gvk schema.GroupVersionKind, name string) [][]string {
	if gvk.GroupKind() == (schema.GroupKind{Kind: "ConfigMap"}) {
		switch name {
		case UserSettingsConfigMap:
			return [][]string{{"data"}}
		case FeaturesConfigMap:
			return [][]string{{"data"}, {"data", wireform.KeepNot + IPStackTypeKey}, {"data", wireform.KeepNot + VersionKey}}
		}
		return nil
	}
	return wireform.WorkloadKeptFields(gvk)
}

// ConsoleConfigKind is the kind of OpenShift's Console operator
// configuration, whose spec.plugins enables a console plugin.
var ConsoleConfigKind = schema.GroupVersionKind{Group: "operator.openshift.io", Version: "v1", Kind: "Console"}

// ConsolePluginKind is the kind of the ConsolePlugin.
var ConsolePluginKind = consolev1.GroupVersion.WithKind("ConsolePlugin")

// ListTargets implements hco.ListMember: the Console operator
// configuration "cluster"'s spec.plugins.
func (Operand) ListTargets() []hco.ListTarget {
	return []hco.ListTarget{{GVK: ConsoleConfigKind, Name: hco.ClusterConfigName, Path: []string{"spec", "plugins"}}}
}

// ListItems implements hco.ListMember: on OpenShift, PluginName, Absent
// while the plugin is not deployed (an image unset): the console then no
// longer loads a plugin that is gone.
func (o Operand) ListItems(_ *hcov1.HyperConverged, facts hco.Facts) []hco.ListItem {
	if !facts.Platform.OpenShift {
		return nil
	}
	_, _, deployed := images(facts.Environment)
	return []hco.ListItem{{Target: o.ListTargets()[0], Value: PluginName, Absent: !deployed}}
}

// Images implements hco.Imager: upstream's variables KV_CONSOLE_PLUGIN_IMAGE
// and KV_CONSOLE_PROXY_IMAGE.
func (Operand) Images() []hco.Image {
	return []hco.Image{
		{Key: PluginImageKey, Flag: "console-plugin-image", Variable: "KV_CONSOLE_PLUGIN_IMAGE",
			Usage: "Image of the virtualization UI's OpenShift console plugin; with the proxy's, the consoleplugin operand deploys it on OpenShift"},
		{Key: ProxyImageKey, Flag: "console-proxy-image", Variable: "KV_CONSOLE_PROXY_IMAGE",
			Usage: "Image of the console plugin's API server proxy; with the plugin's, the consoleplugin operand deploys it on OpenShift"},
	}
}

// AddToScheme implements hco.SchemeAdder: OpenShift's ConsolePlugin kind.
func (Operand) AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(consolev1.GroupVersion, &consolev1.ConsolePlugin{}, &consolev1.ConsolePluginList{})
	metav1.AddToGroupVersion(s, consolev1.GroupVersion)
	return nil
}

// labelsOf is a copy of the labels of component.
func labelsOf(hc *hcov1.HyperConverged, env hco.Environment, component string) map[string]string {
	return maps.Clone(hco.Labels(hc, env, component))
}
