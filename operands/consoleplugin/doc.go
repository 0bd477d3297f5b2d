// Package consoleplugin is the operand module of the virtualization UI in
// OpenShift's web console, as upstream HCO at 03da3cf deploys it on
// OpenShift (controllers/handlers/kubevirtConsolePlugin.go): the console
// plugin "kubevirt-plugin" (an nginx serving the plugin's files, over the
// serving certificate OpenShift's service CA issues to its Service) and
// the kubevirt-apiserver-proxy the plugin talks to the cluster through,
// each with its ServiceAccount, Service and NetworkPolicy; the nginx
// configuration, the UI's user-settings and features ConfigMaps and the Role
// and RoleBinding that let every authenticated user read them (and edit the
// user settings); the ConsolePlugin that registers the plugin with the
// console; and, through hco.ListMember, the plugin's name in the Console
// operator configuration "cluster"'s spec.plugins, which enables it.
//
// It deploys on OpenShift only (hco.Facts.Platform), and only with both
// images (upstream's KV_CONSOLE_PLUGIN_IMAGE and KV_CONSOLE_PROXY_IMAGE);
// elsewhere, or without them, it wants nothing.
//
// The user-settings ConfigMap is the UI's to write: the operator creates it
// empty and keeps what is written there; the features ConfigMap is an
// admin's to edit: its keys are seeded and kept as edited, except the IP
// stack and the version, which the operator sets (upstream's editable
// ConfigMaps, through hco.ContentKeeper).
//
// What it must not do: read the cluster or the environment (images and
// facts are given), or write anything of the Console configuration but its
// own plugin name.
package consoleplugin
