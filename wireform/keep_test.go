package wireform_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/hcokit/hcokit/wireform"
)

func TestKeep(t *testing.T) {
	caBundle := []string{"webhooks", "*", "clientConfig", "caBundle"}
	for _, tc := range []struct {
		name           string
		want, observed string
		paths          [][]string
		result         string
		copied         bool
	}{{
		name:     "a caBundle injected by someone else is kept",
		want:     `{"webhooks":[{"name":"a","clientConfig":{"service":{"name":"s"}}}]}`,
		observed: `{"webhooks":[{"name":"a","clientConfig":{"caBundle":"Q0E=","service":{"name":"s"}}}]}`,
		paths:    [][]string{caBundle},
		result:   `{"webhooks":[{"name":"a","clientConfig":{"caBundle":"Q0E=","service":{"name":"s"}}}]}`,
		copied:   true,
	}, {
		name:     "every item of the list, by position",
		want:     `{"webhooks":[{"clientConfig":{}},{"clientConfig":{}},{"clientConfig":{}}]}`,
		observed: `{"webhooks":[{"clientConfig":{"caBundle":"MQ=="}},{"clientConfig":{}}]}`,
		paths:    [][]string{caBundle},
		result:   `{"webhooks":[{"clientConfig":{"caBundle":"MQ=="}},{"clientConfig":{}},{"clientConfig":{}}]}`,
		copied:   true,
	}, {
		name:     "a kept map's members named with KeepNot are the operator's",
		want:     `{"data":{"edited":"default","version":"2","ipStack":"DualStack"}}`,
		observed: `{"data":{"edited":"by the admin","version":"1","ipStack":"IPv4SingleStack","added":"x"}}`,
		paths:    [][]string{{"data"}, {"data", "!version"}, {"data", "!ipStack"}},
		result:   `{"data":{"edited":"by the admin","version":"2","ipStack":"DualStack","added":"x"}}`,
		copied:   true,
	}, {
		name:     "the items of a list matched by a member (ByKey), whatever their order",
		want:     `{"tags":[{"name":"latest","from":"a"},{"name":"9","from":"b"},{"from":"c"},{"name":"new"}]}`,
		observed: `{"tags":[{"name":"theirs","annotations":{"x":"0"}},{"name":"9","annotations":{"x":"9"}},{"name":"latest","annotations":{"x":"l"}},{"annotations":{"x":"?"}}]}`,
		paths:    [][]string{{"tags", wireform.ByKey("name"), "annotations"}},
		result:   `{"tags":[{"name":"latest","from":"a","annotations":{"x":"l"}},{"name":"9","from":"b","annotations":{"x":"9"}},{"from":"c"},{"name":"new"}]}`,
		copied:   true,
	}, {
		name:     "a value the operator builds wins",
		want:     `{"webhooks":[{"clientConfig":{"caBundle":"b3Vycw=="}}]}`,
		observed: `{"webhooks":[{"clientConfig":{"caBundle":"dGhlaXJz"}}]}`,
		paths:    [][]string{caBundle},
		result:   `{"webhooks":[{"clientConfig":{"caBundle":"b3Vycw=="}}]}`,
	}, {
		name:     "nothing observed, nothing kept",
		want:     `{"webhooks":[{"clientConfig":{}}]}`,
		observed: `{"webhooks":[{"clientConfig":{}}]}`,
		paths:    [][]string{caBundle},
		result:   `{"webhooks":[{"clientConfig":{}}]}`,
	}, {
		name:     "a top-level member, such as a Secret's data",
		want:     `{"type":"Opaque"}`,
		observed: `{"type":"Opaque","data":{"tls.crt":"Y2VydA=="}}`,
		paths:    [][]string{{"data"}},
		result:   `{"type":"Opaque","data":{"tls.crt":"Y2VydA=="}}`,
		copied:   true,
	}, {
		name:     "a map both hold: as found, the members it lacks seeded (an editable ConfigMap)",
		want:     `{"data":{"config.yaml":"rules:\n","seeded":"x"}}`,
		observed: `{"data":{"config.yaml":"rules:\n- mine\n","added":"y"}}`,
		paths:    [][]string{{"data"}},
		result:   `{"data":{"config.yaml":"rules:\n- mine\n","added":"y","seeded":"x"}}`,
		copied:   true,
	}, {
		name:     "a map as found already",
		want:     `{"data":{"config.yaml":"rules:\n"}}`,
		observed: `{"data":{"config.yaml":"rules:\n"}}`,
		paths:    [][]string{{"data"}},
		result:   `{"data":{"config.yaml":"rules:\n"}}`,
	}, {
		name:     "objects on the way are created",
		want:     `{"webhooks":[{"name":"a"}]}`,
		observed: `{"webhooks":[{"name":"a","clientConfig":{"caBundle":"Q0E=","url":"https://x"}}]}`,
		paths:    [][]string{caBundle},
		result:   `{"webhooks":[{"name":"a","clientConfig":{"caBundle":"Q0E="}}]}`,
		copied:   true,
	}, {
		name:     "a list missing from the desired object is not copied whole",
		want:     `{}`,
		observed: `{"webhooks":[{"clientConfig":{"caBundle":"Q0E="}}]}`,
		paths:    [][]string{caBundle},
		result:   `{}`,
	}, {
		name:     "shapes that do not match are left alone",
		want:     `{"webhooks":{"clientConfig":{}}}`,
		observed: `{"webhooks":[{"clientConfig":{"caBundle":"Q0E="}}]}`,
		paths:    [][]string{caBundle, {}, {"*"}},
		result:   `{"webhooks":{"clientConfig":{}}}`,
	}, {
		name:     "a null the operator sends is its value",
		want:     `{"secrets":null}`,
		observed: `{"secrets":[{"name":"s"}]}`,
		paths:    [][]string{{"secrets"}},
		result:   `{"secrets":null}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			want, observed := fromJSON(t, tc.want), fromJSON(t, tc.observed)
			before := observed.DeepCopy()
			assert.Equal(t, tc.copied, wireform.Keep(want, observed, tc.paths))
			assert.Equal(t, fromJSON(t, tc.result).Object, want.Object)
			assert.Equal(t, before.Object, observed.Object, "the observed object is not changed")
			if tc.copied {
				// What was copied is a copy: editing it leaves observed alone.
				unstructured.RemoveNestedField(want.Object, "webhooks")
				unstructured.RemoveNestedField(want.Object, "data")
				assert.Equal(t, before.Object, observed.Object)
			}
		})
	}
}

func fromJSON(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, json.Unmarshal([]byte(s), &u.Object))
	return u
}
