package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// RemoveFinalizer removes finalizer from obj, by position, under JSON patch
// tests instead of a resourceVersion: a write of the object's status that
// the cache has not seen cannot make it conflict, nor is another's
// finalizer added meanwhile lost. The UID test keeps a cache still showing
// a gone object from freeing its same-named successor. moved: a test
// failed, the object is not the one read; the caller reads it again.
func RemoveFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) (moved bool, err error) {
	i := slices.Index(obj.GetFinalizers(), finalizer)
	if i < 0 {
		return false, nil
	}
	at := fmt.Sprintf("/metadata/finalizers/%d", i)
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/uid", "value": obj.GetUID()},
		{"op": "test", "path": at, "value": finalizer},
		{"op": "remove", "path": at},
	})
	if err != nil {
		return false, err
	}
	err = c.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, patch))
	switch {
	case apierrors.IsNotFound(err):
		return false, nil // gone
	case apierrors.IsInvalid(err):
		log.FromContext(ctx).V(1).Info("finalizer patch refused", "error", err.Error())
		return true, nil // another object, or another finalizer list, by now
	}
	return false, err
}
