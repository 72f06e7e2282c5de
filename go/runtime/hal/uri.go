package hal

import (
	"net/url"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// URI is a parsed device URI: scheme[:[//|/]path][?k=v&k2=v2].
type URI struct {
	Driver string
	Path   string
	Params map[string]string
}

// ParseURI splits a device URI as IREE does: the driver is everything before
// the first ':', a leading "//" (or a single "/") is dropped from the rest,
// and "?k=v&…" parameters follow the path. "cuda", "cuda:0", "cuda://0" and
// "cuda://GPU-<uuid>" are all valid.
func ParseURI(uri string) (URI, error) {
	u := URI{Params: map[string]string{}}
	driver, rest, _ := strings.Cut(uri, ":")
	u.Driver = strings.TrimSpace(driver)
	if u.Driver == "" {
		return URI{}, status.Errorf(status.InvalidArgument, "device URI %q has no driver name; expected e.g. 'local-task' or 'cuda://0'", uri)
	}
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
	} else if strings.HasPrefix(rest, "/") {
		rest = rest[1:]
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	u.Path = path
	if hasQuery {
		for _, kv := range strings.Split(query, "&") {
			if kv == "" {
				continue
			}
			k, v, _ := strings.Cut(kv, "=")
			if uk, err := url.QueryUnescape(k); err == nil {
				k = uk
			}
			if uv, err := url.QueryUnescape(v); err == nil {
				v = uv
			}
			u.Params[k] = v
		}
	}
	return u, nil
}

// String formats the URI as the tools print it: "driver://path".
func (u URI) String() string { return u.Driver + "://" + u.Path }
