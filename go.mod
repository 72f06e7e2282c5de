module github.com/gree-ml/gree

go 1.26.0

require github.com/ebitengine/purego v0.11.3

require github.com/google/go-cmp v0.7.0

require golang.org/x/sys v0.49.0
