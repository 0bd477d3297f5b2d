package testenv

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// StoredAPIVersion returns the apiVersion an object is stored in, read
// from etcd itself (its JSON gateway, /v3/kv/range) under the API server's
// key for it: /registry/<group>/<resource>/<namespace>/<name> for a custom
// resource (namespace empty for a cluster-scoped one). What the API server
// answers is converted to the version asked for; only etcd says which
// version a custom resource was stored in.
func (e *Env) StoredAPIVersion(group, resource, namespace, name string) (string, error) {
	key := strings.Join([]string{"/registry", group, resource, namespace, name}, "/")
	if namespace == "" {
		key = strings.Join([]string{"/registry", group, resource, name}, "/")
	}
	body, err := json.Marshal(map[string]string{"key": base64.StdEncoding.EncodeToString([]byte(key))})
	if err != nil {
		return "", err
	}
	u := *e.Environment.ControlPlane.Etcd.URL
	u.Path = "/v3/kv/range"
	resp, err := http.Post(u.String(), "application/json", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("etcd range %s: %w", key, err)
	}
	defer func() { _ = resp.Body.Close() }()
	var out struct {
		KVs []struct {
			Value []byte `json:"value"`
		} `json:"kvs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", fmt.Errorf("etcd range %s: %w", key, err)
	}
	if resp.StatusCode != http.StatusOK || len(out.KVs) != 1 {
		return "", fmt.Errorf("etcd range %s: status %d, %d values", key, resp.StatusCode, len(out.KVs))
	}
	var obj struct {
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(out.KVs[0].Value, &obj); err != nil {
		return "", fmt.Errorf("etcd value of %s: %w", key, err)
	}
	return obj.APIVersion, nil
}
