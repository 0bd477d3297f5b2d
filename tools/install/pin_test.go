package install

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The base images named by tag get the digest a registry gives for the tag
// (an in-memory registry here, as crane asks a real one in make
// pin-images); stages, scratch, build arguments and images already by
// digest are left, so pinning twice changes nothing.
func TestPinBaseImages(t *testing.T) {
	reg := httptest.NewServer(registry.New())
	defer reg.Close()
	host := strings.TrimPrefix(reg.URL, "http://")
	img, err := random.Image(256, 1)
	require.NoError(t, err)
	require.NoError(t, crane.Push(img, host+"/golang:1.26", crane.Insecure))
	want, err := img.Digest()
	require.NoError(t, err)

	dockerfile := fmt.Sprintf(`# a build
FROM --platform=$BUILDPLATFORM %[1]s/golang:1.26 AS build
RUN go build
FROM build AS test
FROM $BASE
FROM %[1]s/static@sha256:%[2]s
FROM scratch
`, host, strings.Repeat("a", 64))
	digest := func(ref string) (string, error) { return crane.Digest(ref, crane.Insecure) }
	out, pinned, err := PinBaseImages(dockerfile, digest)
	require.NoError(t, err)
	assert.Equal(t, []string{host + "/golang:1.26@" + want.String()}, pinned)
	assert.Equal(t, strings.Replace(dockerfile, host+"/golang:1.26 ", host+"/golang:1.26@"+want.String()+" ", 1), out)

	again, pinned, err := PinBaseImages(out, digest)
	require.NoError(t, err)
	assert.Empty(t, pinned)
	assert.Equal(t, out, again)

	_, _, err = PinBaseImages("FROM "+host+"/missing:1\n", digest)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 1: the digest of "+host+"/missing:1")
}
