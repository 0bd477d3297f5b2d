package hpp

// No RBAC markers here: the operand is opt-in, and config/components/hpp,
// which turns it on, grants the operator the HostPathProvisioner (list,
// watch, create; get, update, delete of hostpath-provisioner), so that the
// default install does not.
