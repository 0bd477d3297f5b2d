package imagestream

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): the ImageStreams, in every
// namespace (their namespace is the HyperConverged's
// commonBootImageNamespace, named at run time), by no name (their names
// come from the files a distribution gives): list, watch, create, get,
// update, delete, as upstream grants them. Used on OpenShift with image
// streams to make only; elsewhere nothing is asked.
// +kubebuilder:rbac:groups=image.openshift.io,resources=imagestreams,verbs=get;list;watch;create;update;delete
