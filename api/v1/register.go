package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of the HyperConverged API.
var GroupVersion = schema.GroupVersion{Group: "hco.kubevirt.io", Version: "v1"}

// AddToScheme registers the HyperConverged types with a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &HyperConverged{}, &HyperConvergedList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// Hub marks v1 as the version every other HyperConverged version converts
// through (controller-runtime's conversion.Hub).
func (*HyperConverged) Hub() {}
