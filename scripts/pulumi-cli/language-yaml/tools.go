//go:build tools

// Package tools pins the main package that scripts/ensure-pulumi builds from
// this module (Pulumi's YAML language host, pulumi-yaml v1.25.0), so that
// `go mod tidy` keeps every module it needs in go.mod and go.sum.
package tools

import (
	_ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
)
