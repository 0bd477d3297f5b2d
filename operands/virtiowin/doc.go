// Package virtiowin is the operand module of the virtio-win drivers image
// on OpenShift, as upstream HCO at 03da3cf deploys it
// (controllers/handlers/virtio_win_ConfigMap.go): the ConfigMap
// "virtio-win" in the operator's namespace naming the container disk of
// Windows' virtio drivers (which the console's Windows VM creation reads),
// and the Role and RoleBinding that let every authenticated user read it.
//
// It deploys on OpenShift only (hco.Facts.Platform); the ConfigMap only
// with the image (upstream's VIRTIOWIN_CONTAINER), the Role and RoleBinding
// on OpenShift whether or not, as upstream. Upstream's
// DEPLOY_VIRT_IO_WIN_DATA_FILE (a download URL under the virtctl download's
// host) is not read.
//
// What it must not do: read the cluster or the environment.
package virtiowin
