//go:build tools

// Package tools pins the main package that scripts/ensure-pulumi builds from
// this module (Pulumi's Go language host, sdk/v3 v3.66.0), so that
// `go mod tidy` keeps every module it needs in go.mod and go.sum.
package tools

import (
	_ "github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go"
)
