package installtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// AuditPolicy records every request with its user and the authorizer's
// decision (the annotations of level Metadata).
const AuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
`

// Request is one API request of the audit log, as the authorizer saw it,
// and its answer.
type Request struct {
	User, Group, Resource, Verb, Namespace, Name string
	// Forbidden: the authorizer refused it.
	Forbidden bool
	// Code and Message are the answer's (an admission refusal is a 403
	// or a 422 the authorizer allowed).
	Code    int
	Message string
}

func (r Request) String() string {
	return fmt.Sprintf("%s %s in %q name %q", r.Verb, groupResource(r.Group, r.Resource), r.Namespace, r.Name)
}

func groupResource(group, resource string) string {
	if group == "" {
		return resource
	}
	return group + "/" + resource
}

// RequestsOf reads the audit log and returns the resource requests of users.
func RequestsOf(t *testing.T, path string, users ...string) []Request {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []Request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Stage string `json:"stage"`
			Verb  string `json:"verb"`
			User  struct {
				Username string `json:"username"`
			} `json:"user"`
			ObjectRef *struct {
				APIGroup    string `json:"apiGroup"`
				Resource    string `json:"resource"`
				Subresource string `json:"subresource"`
				Namespace   string `json:"namespace"`
				Name        string `json:"name"`
			} `json:"objectRef"`
			Annotations    map[string]string `json:"annotations"`
			ResponseStatus *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"responseStatus"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.ObjectRef == nil || !slices.Contains(users, e.User.Username) {
			continue
		}
		if e.Stage != "ResponseComplete" && e.Stage != "ResponseStarted" && e.Stage != "Panic" {
			continue
		}
		resource := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			resource += "/" + e.ObjectRef.Subresource
		}
		r := Request{
			User: e.User.Username, Group: e.ObjectRef.APIGroup, Resource: resource, Verb: e.Verb,
			Namespace: e.ObjectRef.Namespace, Name: e.ObjectRef.Name,
			Forbidden: e.Annotations["authorization.k8s.io/decision"] == "forbid",
		}
		if e.ResponseStatus != nil {
			r.Code, r.Message = e.ResponseStatus.Code, e.ResponseStatus.Message
		}
		out = append(out, r)
	}
	require.NoError(t, sc.Err())
	return out
}

// Grant is one verb on one resource that a role gives a service account.
type Grant struct {
	Role      string // Kind/name
	Namespace string // "" for a ClusterRole bound cluster-wide
	Group     string
	Resource  string
	Verb      string
	Names     []string
}

func (g Grant) String() string {
	s := fmt.Sprintf("%s: %s %s", g.Role, g.Verb, groupResource(g.Group, g.Resource))
	if g.Namespace != "" {
		s += " in " + g.Namespace
	}
	if len(g.Names) > 0 {
		s += " named " + strings.Join(g.Names, ",")
	}
	return s
}

// GrantsOf expands the rules bound to the service account ns/sa in the
// rendered manifests into one grant per group, resource and verb.
func GrantsOf(t *testing.T, objs []*unstructured.Unstructured, ns, sa string) []Grant {
	t.Helper()
	roles := map[string]rbacv1.ClusterRole{}
	for _, u := range objs {
		if u.GetKind() == "Role" || u.GetKind() == "ClusterRole" {
			var r rbacv1.ClusterRole
			Into(t, u, &r)
			roles[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = r
		}
	}
	var out []Grant
	for _, u := range objs {
		if u.GetKind() != "RoleBinding" && u.GetKind() != "ClusterRoleBinding" {
			continue
		}
		var b rbacv1.RoleBinding
		Into(t, u, &b)
		if !slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
			return s.Kind == "ServiceAccount" && s.Namespace == ns && s.Name == sa
		}) {
			continue
		}
		key := b.RoleRef.Kind + "/" + b.Namespace + "/" + b.RoleRef.Name
		if b.RoleRef.Kind == "ClusterRole" {
			key = "ClusterRole//" + b.RoleRef.Name
		}
		role, ok := roles[key]
		require.True(t, ok, "%s %s binds %s, which the manifests do not have", u.GetKind(), u.GetName(), key)
		for _, r := range role.Rules {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						out = append(out, Grant{Role: b.RoleRef.Kind + "/" + b.RoleRef.Name, Namespace: b.Namespace, Group: g, Resource: res, Verb: v, Names: r.ResourceNames})
					}
				}
			}
		}
	}
	return out
}

// UsedBy reports whether one of the allowed requests exercised g. An
// informer's streaming list is a watch (sendInitialEvents): it stands for the
// list the informer falls back to on a server without it.
func (g Grant) UsedBy(reqs []Request) bool {
	for _, r := range reqs {
		if r.Forbidden || r.Group != g.Group || r.Resource != g.Resource {
			continue
		}
		if r.Verb != g.Verb && (g.Verb != "list" || r.Verb != "watch") {
			continue
		}
		if g.Namespace != "" && r.Namespace != g.Namespace {
			continue
		}
		if len(g.Names) > 0 && !slices.Contains(g.Names, r.Name) {
			continue
		}
		return true
	}
	return false
}

// Summary lists the distinct requests, sorted, for the test log.
func Summary(reqs []Request) string {
	seen := map[string]bool{}
	var lines []string
	for _, r := range reqs {
		s := r.String()
		if r.Forbidden {
			s += " FORBIDDEN"
		}
		if !seen[s] {
			seen[s] = true
			lines = append(lines, s)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
