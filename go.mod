module github.com/gree-ml/gree

go 1.26.0

require github.com/ebitengine/purego v0.11.3

require github.com/google/go-cmp v0.7.0

require golang.org/x/sys v0.49.0

require google.golang.org/protobuf v1.36.12
