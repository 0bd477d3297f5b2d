package testenv

import "reflect"

// NotIn returns the path (below path) of the first value of sent, a JSON
// document, that stored does not hold, or "" when stored holds all of it;
// stored may hold more (the API server's defaults). A test that sends an
// object and reads it back finds with it a field the API server pruned or
// changed.
func NotIn(sent, stored any, path string) string {
	switch s := sent.(type) {
	case map[string]any:
		m, ok := stored.(map[string]any)
		if !ok {
			return path
		}
		for k, v := range s {
			if p := NotIn(v, m[k], path+"."+k); p != "" {
				return p
			}
		}
		return ""
	case []any:
		l, ok := stored.([]any)
		if !ok || len(l) != len(s) {
			return path
		}
		for i := range s {
			if p := NotIn(s[i], l[i], path); p != "" {
				return p
			}
		}
		return ""
	}
	if !reflect.DeepEqual(sent, stored) {
		return path
	}
	return ""
}
