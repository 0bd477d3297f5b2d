package openshift

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Upstream's rule at 03da3cf: one cluster network, an IPv6 one.
func TestSingleStackIPv6(t *testing.T) {
	entry := func(cidr string) any { return map[string]any{"cidr": cidr, "hostPrefix": int64(23)} }
	for _, tc := range []struct {
		name string
		nets []any
		want bool
	}{
		{"IPv6 only", []any{entry("fd01::/48")}, true},
		{"IPv4 only", []any{entry("10.128.0.0/14")}, false},
		{"dual stack", []any{entry("10.128.0.0/14"), entry("fd01::/48")}, false},
		{"none reported", nil, false},
		{"not a CIDR", []any{entry("fd01::")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, SingleStackIPv6(tc.nets)) })
	}
}
