package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the ImageStream's API group and version.
var GroupVersion = schema.GroupVersion{Group: "image.openshift.io", Version: "v1"}

// AddToScheme registers the mirrored types with a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &ImageStream{}, &ImageStreamList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// ImageStream is a stream of tagged images.
//
// +kubebuilder:object:root=true
type ImageStream struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ImageStreamSpec `json:"spec"`
}

// ImageStreamList is a list of ImageStream.
//
// +kubebuilder:object:root=true
type ImageStreamList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ImageStream `json:"items"`
}

// ImageStreamSpec is the stream's tags and how they are looked up.
type ImageStreamSpec struct {
	LookupPolicy          ImageLookupPolicy `json:"lookupPolicy,omitempty"`
	DockerImageRepository string            `json:"dockerImageRepository,omitempty"`
	Tags                  []TagReference    `json:"tags,omitempty"`
}

// ImageLookupPolicy says whether the stream's tags resolve image names in
// the namespace.
type ImageLookupPolicy struct {
	Local bool `json:"local"`
}

// TagReference is one tag of the stream and where its image comes from.
type TagReference struct {
	Name            string                  `json:"name"`
	Annotations     map[string]string       `json:"annotations,omitempty"`
	From            *corev1.ObjectReference `json:"from,omitempty"`
	Reference       bool                    `json:"reference,omitempty"`
	Generation      *int64                  `json:"generation,omitempty"`
	ImportPolicy    TagImportPolicy         `json:"importPolicy,omitempty"`
	ReferencePolicy TagReferencePolicy      `json:"referencePolicy,omitempty"`
}

// TagImportPolicy is how the tag's image is imported.
type TagImportPolicy struct {
	Insecure   bool   `json:"insecure,omitempty"`
	Scheduled  bool   `json:"scheduled,omitempty"`
	ImportMode string `json:"importMode,omitempty"`
}

// TagReferencePolicy is how the tag's image is referenced.
type TagReferencePolicy struct {
	Type string `json:"type"`
}
