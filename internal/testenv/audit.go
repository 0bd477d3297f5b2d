package testenv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// AuditEvent is one request the API server's audit log (Options.AuditPolicy)
// records as complete.
type AuditEvent struct {
	Verb, URI, Username, UserAgent string
	// Group, Resource ("resource/subresource"), Namespace and Name of the
	// object requested; empty for a request on no object.
	Group, Resource, Namespace, Name string
	// Code is the response's status code.
	Code int
	// Forbidden: the authorizer refused the request (an admission
	// webhook's denial is a 403 too, and is not this).
	Forbidden bool
}

// String names the request, its object, its user and its outcome.
func (e AuditEvent) String() string {
	return fmt.Sprintf("%s %s/%s %s/%s by %s %q (%s, %d)", e.Verb, e.Group, e.Resource, e.Namespace, e.Name, e.Username, e.UserAgent, e.URI, e.Code)
}

// AuditOffset is where the audit log ends now: AuditEvents(offset) reads
// what the API server records after it.
func (e *Env) AuditOffset() (int64, error) {
	st, err := os.Stat(e.AuditLog)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// AuditEvents returns the completed requests the audit log records after
// offset (0: all of them).
func (e *Env) AuditEvents(offset int64) ([]AuditEvent, error) {
	f, err := os.Open(e.AuditLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Stage      string `json:"stage"`
			Verb       string `json:"verb"`
			RequestURI string `json:"requestURI"`
			UserAgent  string `json:"userAgent"`
			User       struct {
				Username string `json:"username"`
			} `json:"user"`
			ObjectRef *struct {
				APIGroup, Resource, Subresource, Namespace, Name string
			} `json:"objectRef"`
			ResponseStatus *struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
			Annotations map[string]string `json:"annotations"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Stage != "ResponseComplete" {
			continue
		}
		ev := AuditEvent{Verb: e.Verb, URI: e.RequestURI, Username: e.User.Username, UserAgent: e.UserAgent,
			Forbidden: e.Annotations["authorization.k8s.io/decision"] == "forbid"}
		if r := e.ObjectRef; r != nil {
			ev.Group, ev.Resource, ev.Namespace, ev.Name = r.APIGroup, r.Resource, r.Namespace, r.Name
			if r.Subresource != "" {
				ev.Resource += "/" + r.Subresource
			}
		}
		if e.ResponseStatus != nil {
			ev.Code = e.ResponseStatus.Code
		}
		out = append(out, ev)
	}
	return out, sc.Err()
}
