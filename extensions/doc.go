// Package extensions is the stock binary's set of hco.Extensions, the
// platform features kept outside the core (hco), each a package of its own
// with its permissions and tests:
//
//   - openshift: the OpenShift platform facts the operands are told
//     (hco.Platform: ingress domain, component routes, IP stack, base DNS
//     domain) and kubevirt_hco_single_stack_ipv6;
//   - sharedlists: the hco.ListMember operands' items in shared objects'
//     lists (the console plugin in the Console configuration, the virtctl
//     download's route in the Ingress configuration's status);
//   - olm: under OLM, the operator's OperatorCondition (Upgradeable) and its
//     ClusterServiceVersion's operand-delete annotation;
//   - descheduler: kubevirt_hco_misconfigured_descheduler, from OpenShift's
//     KubeDescheduler;
//   - storedversions: every HyperConverged stored as v1 at start;
//   - upgrade: before the operands, upstream's upgrade patches and
//     leftovers when the HyperConverged records an earlier version, the
//     Adopter operands' settings carried forward, and the switch from
//     upstream's install.
//
// A distribution picks what it wants in manager.Options.Extensions; one
// without OLM leaves olm out and links none of its code. This package holds
// no feature of its own.
package extensions
