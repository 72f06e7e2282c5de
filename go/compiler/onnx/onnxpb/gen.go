// Package onnxpb holds the Go types of the ONNX protobuf schema, generated
// by protoc and protoc-gen-go from onnx.proto.
//
// onnx.proto is the schema file shipped in the onnx 1.22.0 Python package
// (onnx/onnx.proto, IR version 13 / opset 25), unchanged. To regenerate:
//
//	go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
//	go generate ./go/compiler/onnx/onnxpb
package onnxpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go_opt=Monnx.proto=github.com/gree-ml/gree/go/compiler/onnx/onnxpb onnx.proto
